#include "app/cli/describe_strategy.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <vector>

#include "app/strategy/strategy_words.hpp"
#include "models/config/model_config.hpp"
#include "sim/core/error.hpp"
#include "sim/io/data_paths.hpp"
#include "sim/io/yaml_reader.hpp"

namespace ovs {
namespace {

std::vector<ModelFamily> families_of(const std::string& model) {
  if (model.empty()) return {ModelFamily::v3, ModelFamily::v4};
  try {
    return {load_model_config(model).family};
  } catch (const InputError& e) {
    if (!e.file().empty()) throw;
    throw flag_error("--model", e.message());
  }
}

// The strategy files NAME names, one per family it is shipped for (or the path itself).
std::vector<std::string> strategy_paths(const std::string& name,
                                        const std::vector<ModelFamily>& families) {
  std::vector<std::string> paths;
  std::string first_error;
  for (ModelFamily f : families) {
    try {
      const std::string p = resolve_data_file(name, strategy_folder(f), "strategy");
      if (std::find(paths.begin(), paths.end(), p) == paths.end()) paths.push_back(p);
    } catch (const NameError& e) {
      if (first_error.empty() || families.size() == 1) first_error = e.what();
    }
  }
  if (!paths.empty()) return paths;
  if (families.size() == 1) throw flag_error("name", first_error);
  // Unknown in every family: one line with the nearest name of each.
  std::vector<std::string> names;
  for (ModelFamily f : families)
    for (const auto& n : shipped_names(strategy_folder(f)))
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  const std::string near = yaml::did_you_mean(name, names);
  throw flag_error("name", "unknown strategy '" + name + "'" +
                               (near.empty() ? "" : " (did you mean '" + near + "'?)") +
                               "; shipped: " + yaml::join(names));
}

}  // namespace

int describe_strategy(const std::string& name, const std::string& model, bool json,
                      std::ostream& out) {
  const auto families = families_of(model);
  std::vector<Strategy> found;
  for (const auto& path : strategy_paths(name, families)) {
    Strategy s = yaml::parse_file(path, parse_strategy);
    if (std::find(families.begin(), families.end(), s.family) == families.end())
      throw InputError(path, s.family_line, "model_family",
                       "strategy '" + s.name + "' is for another model family than --model");
    found.push_back(std::move(s));
  }
  if (json) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& s : found) list.push_back(strategy_json(s, header_comment(s.file)));
    out << nlohmann::ordered_json{{"kind", "strategy"}, {"name", name}, {"strategies", list}}.dump(
               2)
        << "\n";
    return 0;
  }
  for (size_t i = 0; i < found.size(); ++i) {
    if (i) out << "\n";
    out << strategy_text(found[i], header_comment(found[i].file));
  }
  if (found.size() > 1)
    out << "\n'" << name << "' is shipped for " << found.size()
        << " model families; --model picks one.\n";
  return 0;
}

}  // namespace ovs
