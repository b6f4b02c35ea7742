#pragma once
// Evaluates one point of a sweep: loads what the point names (with any hw.* / model.* field
// overridden), compares every strategy with the baseline, and formats the CSV rows. A point that
// cannot run (an EP that does not divide the experts...) gives rows with its error, not a failed
// sweep.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app/sweep/sweep_spec.hpp"

namespace ovs {

// The CSV columns after the inputs.
const std::vector<std::string>& output_columns();
// The columns a spec with `uncertainty: N` adds after them.
const std::vector<std::string>& uncertainty_columns();

class PointEvaluator {
 public:
  explicit PointEvaluator(const SweepSpec& spec);
  ~PointEvaluator();
  // One CSV line per strategy, in the spec's order, each ending with '\n'.
  std::string rows(long long index);
  std::string header() const;

 private:
  struct Cache;
  const SweepSpec& spec_;
  std::vector<std::string> inputs_;
  std::unique_ptr<Cache> cache_;
};

// The start of every row of a point: its number and its inputs (`inputs`: the spec's
// input_columns()), as CSV fields.
std::string point_prefix(const SweepSpec& spec, const std::vector<std::string>& inputs,
                         long long index);

// Checks up front what would make every point fail: unknown model, GPU or strategy names.
void check_sweep_names(const SweepSpec& spec);

}  // namespace ovs
