#pragma once
// Where a sweep's rows came from, written as '#' lines before the CSV header of every results
// file: the overlapsim version, the spec (its name, a SHA-256 fingerprint and the spec itself as
// one JSON line, so a file describes its own points), the SHA-256 of every model, hardware and
// strategy file the points used, and which shards of how many the file holds. --resume and
// merge compare these lines and refuse rows of another sweep, version or file content.
#include <istream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "app/sweep/sweep_spec.hpp"

namespace ovs {

struct Provenance {
  std::string version;
  std::string spec_name;
  std::string spec_sha256;  // of spec_json
  std::string spec_json;    // the parsed spec, canonical (points are generated from it)
  std::vector<std::pair<std::string, std::string>> files;  // (label, sha256), sorted by label
  int shard_count = 1;
  std::vector<int> shards{0};  // the shards this file holds, ascending
  long long points = 0;        // points of those shards
  long long total_points = 0;  // points of the whole sweep

  // The '#' lines, each ending with '\n'.
  std::string text() const;
  // "1/3", "0,2/3"; the whole sweep is "0/1".
  std::string shard_text() const;
};

// Provenance of running `spec` as shard i of n (0 of 1: the whole sweep). Hashes every file the
// spec's models, GPUs and strategies resolve to.
Provenance provenance_of(const SweepSpec& spec, int shard_index, int shard_count);

// Points of shard i of n among `total` (every n-th point from i).
long long shard_point_count(long long total, int shard_index, int shard_count);

// A results file's provenance as read back, with the line of every field.
struct ProvenanceRead {
  Provenance p;
  std::map<std::string, int> lines;  // "version", "spec", "spec_json", "file", "shard", "points"
  int last_line = 0;                 // lines read (the '#' lines)
};

// Reads the '#' lines at the start of `in`; InputError naming the file, line and field when
// they are missing (a file from an older overlapsim, or not a sweep's results) or malformed.
ProvenanceRead read_provenance(std::istream& in, const std::string& path);

// The first field in which `found` (read from `path`) differs from `want`, as an InputError
// located at that field's line, saying what each side holds; `want_from` names where `want`
// comes from ("this spec", another part's path). Shards and point counts are compared only when
// `compare_shards`.
void require_same_sweep(const ProvenanceRead& found, const std::string& path,
                        const Provenance& want, const std::string& want_from, bool compare_shards);

// The spec a provenance describes (its points and columns); InputError located at the
// spec_json line when it cannot be read.
SweepSpec spec_from_provenance(const ProvenanceRead& r, const std::string& path);

}  // namespace ovs
