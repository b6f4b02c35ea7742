#pragma once
// Head to head: which strategy is best at each x of a sweep (the highest speedup over the shared
// baseline, the baseline itself where nothing beats it) and where the lead changes - between any
// two strategies, TBO against SBO as much as either against no overlap. A lead change is placed
// where the two strategies' speedups cross, interpolated between the points around it like a
// crossover (log x when the axis spans a factor of ten; on a discrete axis, the first x where
// the new leader leads).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/sweep/chart_words.hpp"
#include "app/sweep/results_table.hpp"

namespace ovs {

// What "best" is at an x where neither the baseline nor any strategy fits in HBM.
inline constexpr const char* kNothingFits = "does not fit";

struct Lead {
  double x = 0;
  std::string best;       // a strategy, the baseline's name, or kNothingFits
  double speedup = 0;     // of `best` over the baseline (1 for the baseline itself)
  std::string runner_up;  // empty when nothing else fits
  double runner_up_speedup = 0;
};

struct LeadChange {
  std::string from, to;
  double after_x = 0, before_x = 0;  // the measured x on each side of the change
  double x = 0;                      // where the two cross (interpolated; before_x if discrete)
  bool interpolated = false;         // false: on a discrete axis, or a side does not fit at both xs
  bool from_stops_fitting = false;   // `from` does not fit in HBM at before_x
};

struct Leaders {
  Inputs group;  // the other varying inputs
  std::string baseline;
  std::vector<Lead> leads;  // in x order
  std::vector<LeadChange> changes;
};

std::vector<Leaders> leaders(const ResultsTable& t, const std::string& x_column,
                             const std::string& file);

// One row per group and x: the group's inputs, x, best, speedup, runner_up, runner_up_speedup.
std::string leaders_csv(const std::vector<Leaders>& ls, const std::string& x_column);
nlohmann::ordered_json leaders_json(const std::vector<Leaders>& ls);

// "sbo 4-16, tbo-decode 32-512" (runs of the same best along x).
std::string lead_runs(const Leaders& l, bool discrete);
// "tbo-decode overtakes sbo at ~24 (between 16 and 32)"
std::string change_words(const LeadChange& c, bool discrete);

}  // namespace ovs
