#include "sim/io/yaml_override.hpp"

#include <sstream>

#include "sim/io/data_paths.hpp"

namespace ovs {

void apply_overrides(const yaml::Value& root, const Overrides& overrides) {
  for (const auto& [path, value] : overrides) {
    YAML::Node node = root.raw();
    std::istringstream parts(path);
    std::string key;
    while (std::getline(parts, key, '.')) {
      if (!node.IsMap() || !node[key]) throw NameError("no field '" + path + "' in " + root.file());
      node.reset(node[key]);
    }
    if (node.IsMap() && node["value"]) {
      node["value"] = value;
      node["source"] = "overridden by a sweep axis";
      // A value the caller sets is exact: the file's spread or range was about its own value (a
      // range need not hold the new one).
      if (node["range"]) node.remove("range");
      node["spread"] = 0;
    } else if (node.IsScalar()) {
      node = value;
    } else {
      throw NameError("field '" + path + "' in " + root.file() + " is not a single value");
    }
  }
}

namespace {
void collect(const YAML::Node& node, const std::string& prefix, std::vector<std::string>& out) {
  if (node.IsScalar()) {
    out.push_back(prefix);
    return;
  }
  if (!node.IsMap()) return;
  if (node["value"] && node["value"].IsScalar()) {
    out.push_back(prefix);
    return;
  }
  for (const auto& kv : node)
    collect(kv.second, prefix.empty() ? kv.first.Scalar() : prefix + "." + kv.first.Scalar(), out);
}
}  // namespace

std::vector<std::string> overridable_paths(const yaml::Value& root) {
  std::vector<std::string> out;
  collect(root.raw(), "", out);
  return out;
}

void check_override_path(const yaml::Value& root, const std::string& path) {
  const auto paths = overridable_paths(root);
  for (const auto& p : paths)
    if (p == path) return;
  const std::string near = yaml::did_you_mean(path, paths);
  throw NameError("no field '" + path + "' in " + root.file() +
                  (near.empty() ? "" : " (did you mean '" + near + "'?)"));
}

}  // namespace ovs
