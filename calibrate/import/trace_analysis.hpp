#pragma once
// An imported trace with everything `overlapsim import-trace` reports about it, and the two
// ways to print it: one JSON object for scripts, a table for people.
#include <nlohmann/json.hpp>
#include <ostream>

#include "calibrate/import/kineto_reader.hpp"
#include "calibrate/import/segments.hpp"
#include "calibrate/import/trace_stats.hpp"

namespace ovs::trace {

struct TraceAnalysis {
  KinetoTrace trace;
  TraceStats stats;
  SegmentSearch segments;  // on the compute stream; times relative to the first kernel
};

TraceAnalysis analyze_trace(KinetoTrace trace);

nlohmann::ordered_json trace_json(const TraceAnalysis& a);
void write_trace_table(std::ostream& out, const TraceAnalysis& a);

}  // namespace ovs::trace
