#include "sim/io/data_paths.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

#include "sim/io/yaml_reader.hpp"

#ifndef OVS_SOURCE_DIR
#define OVS_SOURCE_DIR "."
#endif

namespace ovs {
namespace fs = std::filesystem;

std::string data_root() {
  if (const char* home = std::getenv("OVERLAPSIM_HOME"); home && *home) return home;
  // Installed (cmake --install): <prefix>/bin/overlapsim finds <prefix>/share/overlapsim.
  static const std::string installed = [] {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return std::string();
    const fs::path share = exe.parent_path().parent_path() / "share" / "overlapsim";
    return fs::is_directory(share / "hw_profiles", ec) ? share.string() : std::string();
  }();
  return installed.empty() ? std::string(OVS_SOURCE_DIR) : installed;
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

namespace {

// Lower-case words of a name: "H800 SXM5" -> {h800, sxm5}; "deepseek-v4-flash" ->
// {deepseek, v4, flash}.
std::vector<std::string> words_of(const std::string& s) {
  std::vector<std::string> out(1);
  for (unsigned char c : s) {
    if (std::isalnum(c))
      out.back() += static_cast<char>(std::tolower(c));
    else if (!out.back().empty())
      out.emplace_back();
  }
  if (out.back().empty()) out.pop_back();
  return out;
}

// Where the query's words run, whole, inside the name's: -1 if they do not.
int word_run_at(const std::vector<std::string>& query, const std::vector<std::string>& name) {
  if (query.empty() || query.size() > name.size()) return -1;
  for (size_t at = 0; at + query.size() <= name.size(); ++at)
    if (std::equal(query.begin(), query.end(), name.begin() + at)) return static_cast<int>(at);
  return -1;
}

std::string squeezed(const std::string& s) {
  std::string out;
  for (const auto& w : words_of(s)) out += w;
  return out;
}

// The `aliases:` of a shipped file (hardware profiles name their GPU as published data does).
std::vector<std::string> aliases_of(const fs::path& p) {
  try {
    const YAML::Node root = YAML::LoadFile(p.string());
    if (!root.IsMap() || !root["aliases"] || !root["aliases"].IsSequence()) return {};
    std::vector<std::string> out;
    for (const auto& a : root["aliases"])
      if (a.IsScalar()) out.push_back(a.Scalar());
    return out;
  } catch (const std::exception&) {
    return {};
  }
}

}  // namespace

std::string resolve_data_file(const std::string& name_or_path, const std::string& folder,
                              const std::string& what) {
  std::error_code ec;
  const bool looks_like_path =
      name_or_path.find('/') != std::string::npos ||
      (name_or_path.size() > 5 && name_or_path.compare(name_or_path.size() - 5, 5, ".yaml") == 0);
  const auto files = yaml_files(folder);
  if (looks_like_path) {
    if (fs::exists(name_or_path, ec)) return name_or_path;
    // A shipped file's alias may hold a '/': a Hugging Face id ("deepseek-ai/DeepSeek-V3").
    std::vector<std::string> ids;
    for (const auto& p : files)
      for (const auto& a : aliases_of(p)) {
        if (a.find('/') == std::string::npos) continue;
        if (squeezed(a) == squeezed(name_or_path)) return p.string();
        ids.push_back(a);
      }
    const std::string near = yaml::did_you_mean(name_or_path, ids);
    throw NameError("no such " + what + " file '" + name_or_path + "'" +
                    (ids.empty() ? std::string()
                                 : ", nor a Hugging Face id of a shipped " + what +
                                       (near.empty() ? "" : " (did you mean '" + near + "'?)")));
  }
  for (const auto& p : files)
    if (p.stem() == name_or_path) return p.string();
  // Then, before any guess: the same words in any case ("H800-SXM"), whole words of one name
  // ("h800" -> h800-sxm, "v3" -> deepseek-v3, "flash" -> deepseek-v4-flash; a word cut short is
  // no match), then a file's own aliases ("H800 SXM5"). Several matches are an error naming them.
  const auto query = words_of(name_or_path);
  std::vector<fs::path> hits, at_start;
  for (const auto& p : files)
    if (words_of(p.stem().string()) == query) hits.push_back(p);
  if (hits.empty())
    for (const auto& p : files) {
      const int at = word_run_at(query, words_of(p.stem().string()));
      if (at >= 0) hits.push_back(p);
      if (at == 0) at_start.push_back(p);
    }
  if (hits.size() > 1 && at_start.size() == 1) hits = at_start;
  if (hits.size() > 1) {
    // The shortest name holding the words ("v3": deepseek-v3 rather than deepseek-v3-nvfp4).
    size_t fewest = SIZE_MAX;
    for (const auto& h : hits) fewest = std::min(fewest, words_of(h.stem().string()).size());
    std::vector<fs::path> shortest;
    for (const auto& h : hits)
      if (words_of(h.stem().string()).size() == fewest) shortest.push_back(h);
    if (shortest.size() == 1) hits = shortest;
  }
  if (hits.empty())
    for (const auto& p : files)
      for (const auto& a : aliases_of(p))
        if (!query.empty() && squeezed(a) == squeezed(name_or_path)) {
          hits.push_back(p);
          break;
        }
  if (hits.size() == 1) return hits.front().string();
  if (hits.size() > 1) {
    std::vector<std::string> names;
    for (const auto& h : hits) names.push_back(h.stem().string());
    throw NameError(what + " '" + name_or_path + "' is ambiguous: it names " + yaml::join(names));
  }
  const auto names = shipped_names(folder);
  const std::string near = yaml::did_you_mean(name_or_path, names);
  throw NameError("unknown " + what + " '" + name_or_path + "'" +
                  (near.empty() ? "" : " (did you mean '" + near + "'?)") +
                  "; shipped: " + yaml::join(names));
}

}  // namespace ovs
