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
    } else if (node.IsScalar()) {
      node = value;
    } else {
      throw NameError("field '" + path + "' in " + root.file() + " is not a single value");
    }
  }
}

}  // namespace ovs
