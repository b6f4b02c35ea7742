#include "app/sweep/merge.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

#include "app/sweep/provenance.hpp"
#include "app/sweep/row_checker.hpp"
#include "app/sweep/sweep_point.hpp"
#include "sim/core/error.hpp"
#include "sim/io/atomic_file.hpp"

namespace ovs {
namespace {

std::string shards_text(const std::vector<int>& shards, int count) {
  std::string s;
  for (int i : shards) s += (s.empty() ? "" : ", ") + fmt::format("{}/{}", i, count);
  return s;
}

struct Part {
  std::string path;
  std::ifstream in;
  ProvenanceRead prov;
  std::unique_ptr<RowChecker> rows;
  int line = 0;
  std::string row;       // the current row
  long long point = -1;  // its point; -1 at the end of the part
};

// Reads the part's next row, checking it; at the end, checks that every point of its shards
// was there.
void advance(Part& p, const std::string& shard) {
  if (!std::getline(p.in, p.row)) {
    p.point = -1;
    if (p.rows->points_done() != p.rows->points_expected() || !p.rows->point_complete())
      throw InputError(p.path, p.line, "points",
                       fmt::format("{} complete point(s), but shard {} has {}: rows are missing",
                                   p.rows->points_done(), shard, p.rows->points_expected()));
    return;
  }
  ++p.line;
  if (p.in.eof())
    throw InputError(p.path, p.line, "",
                     "the last row is cut off (no end of line): this shard's sweep was "
                     "interrupted; finish it with overlapsim sweep ... --shard " +
                         shard + " --resume");
  p.rows->check(p.row, p.line);
  p.point = p.rows->point();
}

}  // namespace

MergeSummary merge_sweeps(const MergeOptions& o) {
  namespace fs = std::filesystem;
  if (o.parts.empty()) throw flag_error("parts", "nothing to merge");
  std::vector<std::unique_ptr<Part>> parts;
  std::map<int, std::string> owner;  // shard -> part holding it
  std::unique_ptr<SweepSpec> spec;
  std::string header;
  MergeSummary summary;
  for (const auto& path : o.parts) {
    auto p = std::make_unique<Part>();
    p->path = path;
    std::error_code ec;
    if (fs::is_directory(path, ec)) throw InputError(path, 0, "", "is a directory");
    p->in.open(path, std::ios::binary);
    if (!p->in) throw InputError(path, 0, "", "cannot read");
    p->prov = read_provenance(p->in, path);
    const Provenance& pv = p->prov.p;
    const int shard_line = p->prov.lines.at("shard");
    if (!spec) {
      spec = std::make_unique<SweepSpec>(spec_from_provenance(p->prov, path));
      header = PointEvaluator(*spec).header();
      summary.shard_count = pv.shard_count;
      summary.total_points = pv.total_points;
    } else {
      require_same_sweep(p->prov, path, parts.front()->prov.p, o.parts.front(), false);
      if (pv.shard_count != summary.shard_count)
        throw InputError(
            path, shard_line, "shard",
            fmt::format("shard {} of {}, but {} is of {}: not the same split", pv.shard_text(),
                        pv.shard_count, o.parts.front(), summary.shard_count));
    }
    for (int s : pv.shards) {
      auto [it, fresh] = owner.emplace(s, path);
      if (!fresh)
        throw InputError(path, shard_line, "shard",
                         fmt::format("shard {}/{} is also in {}: a shard given twice", s,
                                     pv.shard_count, it->second));
    }
    std::string h;
    p->line = p->prov.last_line + 1;
    if (!std::getline(p->in, h) || h + "\n" != header)
      throw InputError(path, p->line, "header", "not the columns of this sweep's results");
    p->rows = std::make_unique<RowChecker>(*spec, pv.shards, pv.shard_count, path);
    parts.push_back(std::move(p));
  }
  for (int s = 0; s < summary.shard_count; ++s) {
    if (owner.count(s))
      summary.given.push_back(s);
    else
      summary.missing.push_back(s);
  }
  if (!summary.missing.empty() && !o.allow_partial)
    throw InputError(o.parts.front(), parts.front()->prov.lines.at("shard"), "shard",
                     fmt::format("shard(s) {} missing (given: {}); add their files, or pass "
                                 "--allow-partial to merge without them",
                                 shards_text(summary.missing, summary.shard_count),
                                 shards_text(summary.given, summary.shard_count)));
  // The output's provenance: every shard together is the unsharded sweep.
  Provenance out = parts.front()->prov.p;
  if (summary.missing.empty()) {
    out.shards = {0};
    out.shard_count = 1;
  } else {
    out.shards = summary.given;
  }
  out.points = 0;
  for (int s : out.shards) out.points += shard_point_count(out.total_points, s, out.shard_count);
  summary.points = out.points;

  AtomicFile file(o.out);
  file.stream() << out.text() << header;
  for (auto& p : parts) advance(*p, p->prov.p.shard_text());
  // Rows of a point are contiguous in one part: take the part holding the smallest point.
  while (true) {
    Part* best = nullptr;
    for (auto& p : parts)
      if (p->point >= 0 && (!best || p->point < best->point)) best = p.get();
    if (!best) break;
    const long long point = best->point;
    while (best->point == point) {
      file.stream() << best->row << "\n";
      advance(*best, best->prov.p.shard_text());
    }
  }
  file.commit();
  return summary;
}

}  // namespace ovs
