#pragma once
// Checks the rows of a sweep results file against the sweep they claim to belong to: each row
// has the header's number of fields, the next point of the file's shards in order, the spec's
// strategies in order, and exactly the inputs the spec gives that point. A row from another
// sweep, a repeated or skipped point, or a damaged row is an InputError at its line.
#include <string>
#include <vector>

#include "app/sweep/sweep_spec.hpp"

namespace ovs {

class RowChecker {
 public:
  // Rows of `shards` (ascending) of `shard_count` of `spec`, in the file `path`.
  RowChecker(const SweepSpec& spec, std::vector<int> shards, int shard_count, std::string path);

  // Checks one row (without its newline) found at `line` of the file.
  void check(const std::string& row, int line);

  long long point() const { return point_; }              // of the last row checked (-1 before any)
  bool point_complete() const { return strategy_ == 0; }  // every strategy's row of it seen
  long long points_done() const { return done_; }         // complete points so far
  long long points_expected() const { return expected_; }

 private:
  long long next_point(long long after) const;

  const SweepSpec& spec_;
  std::vector<int> shards_;
  int shard_count_;
  std::string path_;
  std::vector<std::string> columns_;  // the CSV header's fields
  std::vector<std::string> inputs_;   // the spec's input columns
  std::string shard_text_;            // "1/3"
  long long point_ = -1;
  size_t strategy_ = 0;  // index of the strategy the next row must have
  long long done_ = 0;
  long long expected_ = 0;
  std::vector<std::string> want_;  // the expected first fields of the current point's rows
};

}  // namespace ovs
