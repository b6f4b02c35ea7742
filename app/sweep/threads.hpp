#pragma once
// How many threads a sweep or a plan runs on: the -j the user gave, or every core the machine
// reports when none was given (the one place that default is decided; sweep's and plan's
// --help say "default: all cores"). Results do not depend on it (byte-identical for any -j).
namespace ovs {

// std::thread::hardware_concurrency(), at least 1 (the standard allows it to report 0).
int all_cores();

// Threads to run: `jobs` when it is >= 1, else all_cores(). SweepOptions::jobs and
// PlanRequest::jobs are 0 unless -j sets them.
int resolve_jobs(int jobs);

}  // namespace ovs
