#pragma once
// `overlapsim merge`: joins the results files of a sharded sweep (--shard i/N) into the file an
// unsharded run writes, byte for byte. Every part must carry the same provenance (version, spec,
// file hashes) and shard count; a shard given twice, a shard missing (unless allow_partial), a
// cut last row, a row of another sweep or a row count that does not match the shard's points is
// an InputError located at its file, line and field, and nothing is written.
#include <string>
#include <vector>

namespace ovs {

struct MergeOptions {
  std::vector<std::string> parts;
  std::string out;
  bool allow_partial = false;  // merge the shards given; the output's provenance lists them
};

struct MergeSummary {
  int shard_count = 1;
  std::vector<int> given;    // shards merged, ascending
  std::vector<int> missing;  // shards absent (allow_partial only)
  long long points = 0;      // points written
  long long total_points = 0;
};

MergeSummary merge_sweeps(const MergeOptions& o);

}  // namespace ovs
