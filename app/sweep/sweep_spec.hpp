#pragma once
// A sweep: a base what-if, axes over any workload, model or hardware field (lists, linear or
// log ranges; cartesian or zipped), and strategies compared against a baseline. Points are
// generated from their index, never all at once, so a sweep of a million points is a loop.
#include <map>
#include <string>
#include <vector>

#include "sim/io/yaml_reader.hpp"

namespace ovs {

struct Axis {
  std::string field;  // whatif field, or "hw.<path>" / "model.<path>" for a profile or config field
  std::vector<std::string> values;
  int line = 0;
};

struct SweepSpec {
  std::string file;
  std::string name;
  std::map<std::string, std::string> base;  // field -> value
  std::vector<Axis> axes;
  bool zip = false;
  std::string baseline = "no-overlap";
  std::vector<std::string> strategies;
  // `uncertainty: N`: each point's what-ifs are also drawn N times within the files' spreads
  // (whatif --uncertainty), adding speedup_p10 / _p50 / _p90 and p_pays columns; 0: not drawn.
  int uncertainty = 0;
  // Lines of "base.<field>", "baseline" and "strategies" in the file (for errors found later).
  std::map<std::string, int> lines;

  long long points() const;
  // Every field's value at a point (base, then the axes).
  std::map<std::string, std::string> point(long long index) const;
  // Input columns of the CSV: the what-if fields in a fixed order, then overrides sorted.
  std::vector<std::string> input_columns() const;
};

SweepSpec load_sweep_spec(const std::string& path);
SweepSpec parse_sweep_spec(const yaml::Value& root);

// The what-if fields a spec may set (besides hw.* and model.*).
const std::vector<std::string>& whatif_fields();

}  // namespace ovs
