#include "sim/io/name_aliases.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>

namespace ovs {
namespace {

std::vector<std::string> aliases_in(const std::filesystem::path& file) {
  std::vector<std::string> out;
  try {
    const YAML::Node root = YAML::LoadFile(file.string());
    if (!root.IsMap()) return out;
    const YAML::Node list = root["aliases"];
    if (!list || !list.IsSequence()) return out;
    for (const auto& item : list)
      if (item.IsScalar()) out.push_back(item.Scalar());
  } catch (const YAML::Exception&) {
    out.clear();
  }
  return out;
}

}  // namespace

std::vector<std::filesystem::path> files_with_alias(const std::vector<std::filesystem::path>& files,
                                                    const std::string& name) {
  std::vector<std::filesystem::path> out;
  for (const auto& f : files) {
    const auto names = aliases_in(f);
    if (std::find(names.begin(), names.end(), name) != names.end()) out.push_back(f);
  }
  return out;
}

std::vector<std::string> aliases_of(const std::vector<std::filesystem::path>& files) {
  std::vector<std::string> out;
  for (const auto& f : files)
    for (auto& a : aliases_in(f)) out.push_back(std::move(a));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace ovs
