#pragma once
// `--trace FILE`: a Perfetto (Chrome trace) file of every run a what-if simulates, one process
// per run in the order they run (pid 1: the baseline, 2: the strategy). The file appears whole
// on commit(), or not at all.
#include <memory>
#include <string>
#include <vector>

#include "app/analysis/whatif.hpp"
#include "sim/io/atomic_file.hpp"
#include "sim/io/chrome_trace.hpp"

namespace ovs {

class TraceFile : public RunWatcher {
 public:
  explicit TraceFile(const std::string& path);
  Observer* watch(const Program& p, const std::string& title) override;
  void commit();

 private:
  AtomicFile file_;
  TraceSink sink_;
  std::vector<std::unique_ptr<ChromeTraceWriter>> writers_;
};

}  // namespace ovs
