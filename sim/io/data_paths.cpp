#include "sim/io/data_paths.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "sim/io/name_aliases.hpp"
#include "sim/io/yaml_reader.hpp"

#ifndef OVS_SOURCE_DIR
#define OVS_SOURCE_DIR "."
#endif

namespace ovs {
namespace fs = std::filesystem;

std::string data_root() {
  if (const char* home = std::getenv("OVERLAPSIM_HOME"); home && *home) return home;
  return OVS_SOURCE_DIR;
}

namespace {
std::vector<fs::path> yaml_files(const std::string& folder) {
  std::vector<fs::path> out;
  const fs::path dir = fs::path(data_root()) / folder;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (it->is_regular_file() && it->path().extension() == ".yaml") out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

std::vector<std::string> shipped_names(const std::string& folder) {
  std::vector<std::string> names;
  for (const auto& p : yaml_files(folder)) names.push_back(p.stem().string());
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::string resolve_data_file(const std::string& name_or_path, const std::string& folder,
                              const std::string& what) {
  std::error_code ec;
  const bool looks_like_path =
      name_or_path.find('/') != std::string::npos ||
      (name_or_path.size() > 5 && name_or_path.compare(name_or_path.size() - 5, 5, ".yaml") == 0);
  if (looks_like_path) {
    if (!fs::exists(name_or_path, ec))
      throw NameError("no such " + what + " file '" + name_or_path + "'");
    return name_or_path;
  }
  const auto files = yaml_files(folder);
  for (const auto& p : files)
    if (p.stem() == name_or_path) return p.string();
  // Another name of a shipped file (a profile's `aliases:`, e.g. GB200 for gb200.yaml).
  const auto aliased = files_with_alias(files, name_or_path);
  if (aliased.size() == 1) return aliased.front().string();
  if (aliased.size() > 1)
    throw NameError(what + " name '" + name_or_path + "' is an alias of several files: " +
                    aliased[0].string() + ", " + aliased[1].string());
  const auto names = shipped_names(folder);
  auto candidates = names;
  for (auto& a : aliases_of(files)) candidates.push_back(std::move(a));
  const std::string near = yaml::did_you_mean(name_or_path, candidates);
  throw NameError("unknown " + what + " '" + name_or_path + "'" +
                  (near.empty() ? "" : " (did you mean '" + near + "'?)") +
                  "; shipped: " + yaml::join(names));
}

}  // namespace ovs
