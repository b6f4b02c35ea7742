#include "app/sweep/provenance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "models/config/model_config.hpp"
#include "sim/core/error.hpp"
#include "sim/core/sha256.hpp"
#include "sim/core/version.hpp"
#include "sim/io/data_paths.hpp"
#include "sim/io/yaml_reader.hpp"

namespace ovs {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kTitle = "# overlapsim sweep results";

std::string canonical_json(const SweepSpec& s) {
  Json j;
  j["name"] = s.name;
  Json base = Json::object();
  for (const auto& [k, v] : s.base) base[k] = v;  // std::map: sorted keys
  j["base"] = base;
  Json axes = Json::array();
  for (const auto& a : s.axes) axes.push_back({{"field", a.field}, {"values", a.values}});
  j["axes"] = axes;
  j["combine"] = s.zip ? "zip" : "cartesian";
  j["baseline"] = s.baseline;
  j["strategies"] = s.strategies;
  // The draws change what the rows hold: rows of another count do not mix (a spec without
  // draws keeps the hash it had before they existed).
  if (s.uncertainty > 0) j["uncertainty"] = s.uncertainty;
  return j.dump();
}

// Every name a spec field takes: its base value and its axis values.
std::set<std::string> names_of(const SweepSpec& s, const std::string& field) {
  std::set<std::string> out;
  if (s.base.count(field)) out.insert(s.base.at(field));
  for (const auto& a : s.axes)
    if (a.field == field) out.insert(a.values.begin(), a.values.end());
  return out;
}

// A shipped file by its path under the data root ("hw_profiles/h800-sxm.yaml"), so that shards
// run from other checkouts agree; a user's file by the name the spec gives it.
std::string label_of(const std::string& name, const std::string& path) {
  const std::string root = data_root() + "/";
  if (path.rfind(root, 0) == 0) return path.substr(root.size());
  return name;
}

std::string shard_set_text(const std::vector<int>& shards, int count) {
  std::string s;
  for (int i : shards) s += (s.empty() ? "" : ",") + std::to_string(i);
  return s + "/" + std::to_string(count);
}

// "0,2/3" -> ({0, 2}, 3); false when malformed.
bool parse_shard_set(const std::string& text, std::vector<int>* shards, int* count) {
  const auto slash = text.find('/');
  if (slash == std::string::npos) return false;
  try {
    size_t used = 0;
    *count = std::stoi(text.substr(slash + 1), &used);
    if (used != text.size() - slash - 1 || *count < 1) return false;
    shards->clear();
    size_t start = 0;
    while (start <= slash) {
      const size_t comma = std::min(text.find(',', start), slash);
      const std::string item = text.substr(start, comma - start);
      const int i = std::stoi(item, &used);
      if (used != item.size() || i < 0 || i >= *count) return false;
      if (!shards->empty() && i <= shards->back()) return false;
      shards->push_back(i);
      start = comma + 1;
    }
  } catch (const std::exception&) {
    return false;
  }
  return !shards->empty();
}

// "label sha256:hex" -> (label, hex).
bool split_hash(const std::string& text, std::string* label, std::string* hex) {
  const auto at = text.rfind(" sha256:");
  if (at == std::string::npos) return false;
  *label = text.substr(0, at);
  *hex = text.substr(at + 8);
  return hex->size() == 64;
}

}  // namespace

long long shard_point_count(long long total, int shard_index, int shard_count) {
  return total <= shard_index ? 0 : (total - shard_index + shard_count - 1) / shard_count;
}

std::string Provenance::shard_text() const {
  return shard_set_text(shards, shard_count);
}

std::string Provenance::text() const {
  std::string t = std::string(kTitle) + " (provenance; the CSV starts at the next line)\n";
  t += "# version: " + version + "\n";
  t += "# spec: " + spec_name + " sha256:" + spec_sha256 + "\n";
  t += "# spec_json: " + spec_json + "\n";
  for (const auto& [label, hex] : files) t += "# file: " + label + " sha256:" + hex + "\n";
  t += "# shard: " + shard_text() + "\n";
  t += fmt::format("# points: {} of {}\n", points, total_points);
  return t;
}

Provenance provenance_of(const SweepSpec& spec, int shard_index, int shard_count) {
  Provenance p;
  p.version = overlapsim_version();
  p.spec_name = spec.name;
  p.spec_json = canonical_json(spec);
  p.spec_sha256 = sha256_hex(p.spec_json);
  std::map<std::string, std::string> files;  // label -> hash
  auto add = [&](const std::string& name, const std::string& folder, const std::string& what) {
    std::string path;
    try {
      path = resolve_data_file(name, folder, what);
    } catch (const NameError& e) {
      throw InputError(spec.file, 0, what, e.what());
    }
    files[label_of(name, path)] = sha256_file(path);
  };
  for (const auto& hw : names_of(spec, "hw")) add(hw, "hw_profiles", "hardware profile");
  for (const auto& m : names_of(spec, "model")) {
    add(m, "models/configs", "model");
    const std::string dir = load_model_config(m).family == ModelFamily::v4
                                ? "strategies/deepseek-v4"
                                : "strategies/deepseek-v3";
    add(spec.baseline, dir, "strategy");
    for (const auto& s : spec.strategies) add(s, dir, "strategy");
  }
  p.files.assign(files.begin(), files.end());
  p.shard_count = shard_count;
  p.shards = {shard_index};
  p.total_points = spec.points();
  p.points = shard_point_count(p.total_points, shard_index, shard_count);
  return p;
}

ProvenanceRead read_provenance(std::istream& in, const std::string& path) {
  ProvenanceRead r;
  std::string line;
  auto fail = [&](int at, const std::string& field, const std::string& why) {
    throw InputError(path, at, field, why);
  };
  if (!std::getline(in, line)) fail(1, "provenance", "empty file: not a sweep's results");
  r.last_line = 1;
  if (line.rfind(kTitle, 0) != 0)
    fail(1, "provenance",
         "no provenance lines ('" + std::string(kTitle) +
             " ...'): not written by this version's overlapsim sweep, so its rows cannot be "
             "checked against a spec");
  bool have_points = false;
  while (in.peek() == '#' && std::getline(in, line)) {
    const int at = ++r.last_line;
    const auto colon = line.find(": ");
    if (line.size() < 2 || line[1] != ' ' || colon == std::string::npos)
      fail(at, "provenance", "malformed provenance line");
    const std::string key = line.substr(2, colon - 2), value = line.substr(colon + 2);
    if (key != "file" && r.lines.count(key)) fail(at, key, "given twice");
    if (!r.lines.count(key)) r.lines[key] = at;
    Provenance& p = r.p;
    if (key == "version") {
      p.version = value;
    } else if (key == "spec") {
      if (!split_hash(value, &p.spec_name, &p.spec_sha256))
        fail(at, key, "expected '<name> sha256:<64 hex digits>'");
    } else if (key == "spec_json") {
      p.spec_json = value;
    } else if (key == "file") {
      std::string label, hex;
      if (!split_hash(value, &label, &hex))
        fail(at, key, "expected '<file> sha256:<64 hex digits>'");
      p.files.emplace_back(label, hex);
    } else if (key == "shard") {
      if (!parse_shard_set(value, &p.shards, &p.shard_count))
        fail(at, key, "expected i/N or i,j,.../N with 0 <= i < N, got '" + value + "'");
    } else if (key == "points") {
      if (std::sscanf(value.c_str(), "%lld of %lld", &p.points, &p.total_points) != 2 ||
          p.points < 0 || p.total_points < p.points)
        fail(at, key, "expected '<points> of <total>', got '" + value + "'");
      have_points = true;
    } else {
      fail(at, key, "unknown provenance field");
    }
  }
  for (const char* need : {"version", "spec", "spec_json", "shard"})
    if (!r.lines.count(need)) fail(r.last_line, need, "missing provenance line");
  if (!have_points) fail(r.last_line, "points", "missing provenance line");
  if (sha256_hex(r.p.spec_json) != r.p.spec_sha256)
    fail(r.lines.at("spec_json"), "spec_json", "does not match the spec's fingerprint (edited?)");
  long long expected = 0;
  for (int s : r.p.shards) expected += shard_point_count(r.p.total_points, s, r.p.shard_count);
  if (expected != r.p.points)
    fail(r.lines.at("points"), "points",
         fmt::format("shard {} of a {}-point sweep has {} points, not {}", r.p.shard_text(),
                     r.p.total_points, expected, r.p.points));
  return r;
}

void require_same_sweep(const ProvenanceRead& found, const std::string& path,
                        const Provenance& want, const std::string& want_from, bool compare_shards) {
  const Provenance& f = found.p;
  auto line = [&](const std::string& key) {
    auto it = found.lines.find(key);
    return it == found.lines.end() ? found.last_line : it->second;
  };
  if (f.version != want.version)
    throw InputError(path, line("version"), "version",
                     "rows computed by overlapsim " + f.version + ", " + want_from + " by " +
                         want.version + ": results of two versions do not mix");
  if (f.spec_sha256 != want.spec_sha256)
    throw InputError(
        path, line("spec"), "spec",
        fmt::format("rows of another sweep ('{}', sha256:{:.12}), not {} ('{}', "
                    "sha256:{:.12})",
                    f.spec_name, f.spec_sha256, want_from, want.spec_name, want.spec_sha256));
  std::map<std::string, std::string> have(f.files.begin(), f.files.end()),
      need(want.files.begin(), want.files.end());
  for (const auto& [label, hex] : need) {
    auto it = have.find(label);
    if (it == have.end())
      throw InputError(path, line("file"), "file",
                       label + " is used by " + want_from + " but these rows did not use it");
    if (it->second != hex)
      throw InputError(path, line("file"), "file",
                       fmt::format("{} has changed: these rows were computed with sha256:{:.12}, "
                                   "{} has sha256:{:.12}",
                                   label, it->second, want_from, hex));
  }
  for (const auto& [label, hex] : have)
    if (!need.count(label))
      throw InputError(path, line("file"), "file",
                       label + " was used by these rows but not by " + want_from);
  if (compare_shards && (f.shards != want.shards || f.shard_count != want.shard_count))
    throw InputError(
        path, line("shard"), "shard",
        "rows of shard " + f.shard_text() + ", " + want_from + " is shard " + want.shard_text());
}

SweepSpec spec_from_provenance(const ProvenanceRead& r, const std::string& path) {
  const int at = r.lines.at("spec_json");
  SweepSpec s;
  s.file = path;
  try {
    const Json j = Json::parse(r.p.spec_json);
    s.name = j.at("name").get<std::string>();
    for (const auto& [k, v] : j.at("base").items()) s.base[k] = v.get<std::string>();
    for (const auto& a : j.at("axes")) {
      Axis axis;
      axis.field = a.at("field").get<std::string>();
      axis.values = a.at("values").get<std::vector<std::string>>();
      axis.line = at;
      if (axis.values.empty()) throw std::invalid_argument("an axis without values");
      s.axes.push_back(std::move(axis));
    }
    s.zip = j.at("combine").get<std::string>() == "zip";
    s.baseline = j.at("baseline").get<std::string>();
    s.strategies = j.at("strategies").get<std::vector<std::string>>();
    if (s.strategies.empty()) throw std::invalid_argument("no strategies");
    if (j.contains("uncertainty")) s.uncertainty = j.at("uncertainty").get<int>();
    double points = 1;
    for (const auto& a : s.axes) {
      points *= double(a.values.size());
      if (s.zip && a.values.size() != s.axes.front().values.size())
        throw std::invalid_argument("zipped axes of different lengths");
    }
    if (points > 1e12) throw std::invalid_argument("too many points");
  } catch (const std::exception& e) {
    throw InputError(path, at, "spec_json", std::string("cannot read the spec: ") + e.what());
  }
  if (s.points() != r.p.total_points)
    throw InputError(
        path, r.lines.at("points"), "points",
        fmt::format("the spec has {} points, this line says {}", s.points(), r.p.total_points));
  return s;
}

}  // namespace ovs
