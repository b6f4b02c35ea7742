#include "app/sweep/row_checker.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "app/sweep/provenance.hpp"
#include "app/sweep/sweep_point.hpp"
#include "sim/core/error.hpp"
#include "sim/io/csv_reader.hpp"

namespace ovs {

RowChecker::RowChecker(const SweepSpec& spec, std::vector<int> shards, int shard_count,
                       std::string path)
    : spec_(spec), shards_(std::move(shards)), shard_count_(shard_count), path_(std::move(path)) {
  PointEvaluator header(spec_);
  std::string h = header.header();
  h.pop_back();
  columns_ = split_csv_record(h);
  inputs_ = spec_.input_columns();
  for (int s : shards_) {
    expected_ += shard_point_count(spec_.points(), s, shard_count_);
    shard_text_ += (shard_text_.empty() ? "" : ",") + std::to_string(s);
  }
  shard_text_ += "/" + std::to_string(shard_count_);
}

long long RowChecker::next_point(long long after) const {
  // The smallest point > after whose shard (point mod N) is one of this file's.
  const long long n = shard_count_;
  const long long from = after + 1;
  const long long base = from - from % n;
  const auto it = std::lower_bound(shards_.begin(), shards_.end(), int(from % n));
  return it != shards_.end() ? base + *it : base + n + shards_.front();
}

void RowChecker::check(const std::string& row, int line) {
  const std::vector<std::string> fields = split_csv_record(row);
  if (fields.size() != columns_.size())
    throw InputError(
        path_, line, "",
        fmt::format("{} fields, the header has {}: a damaged row", fields.size(), columns_.size()));
  if (strategy_ == 0) {
    // A new point: the next one of this file's shards.
    const long long want = next_point(point_);
    if (done_ >= expected_)
      throw InputError(path_, line, "point",
                       fmt::format("a row beyond the last point: shard {} of this sweep has {} "
                                   "points x {} strategies = {} rows",
                                   shard_text_, expected_, spec_.strategies.size(),
                                   expected_ * static_cast<long long>(spec_.strategies.size())));
    if (fields[0] != std::to_string(want))
      throw InputError(path_, line, "point",
                       "expected point " + std::to_string(want) + ", found '" + fields[0] +
                           "': a row of another shard or sweep, or a point repeated or missing");
    point_ = want;
    want_ = split_csv_record(point_prefix(spec_, inputs_, point_));
  } else if (fields[0] != std::to_string(point_)) {
    throw InputError(path_, line, "point",
                     fmt::format("expected the row of '{}' for point {}, found point '{}'",
                                 spec_.strategies[strategy_], point_, fields[0]));
  }
  const std::vector<std::string>& want = want_;
  for (size_t i = 1; i < want.size(); ++i)
    if (fields[i] != want[i])
      throw InputError(path_, line, columns_[i],
                       fmt::format("'{}', but point {} of this sweep has '{}': a row of another "
                                   "sweep",
                                   fields[i], point_, want[i]));
  const size_t at = want.size();
  if (fields[at] != spec_.strategies[strategy_])
    throw InputError(path_, line, "strategy",
                     fmt::format("'{}', expected '{}' (the spec's strategies in order)", fields[at],
                                 spec_.strategies[strategy_]));
  if (fields[at + 1] != spec_.baseline)
    throw InputError(path_, line, "baseline",
                     fmt::format("'{}', expected '{}'", fields[at + 1], spec_.baseline));
  if (++strategy_ == spec_.strategies.size()) {
    strategy_ = 0;
    ++done_;
  }
}

}  // namespace ovs
