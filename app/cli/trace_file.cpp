#include "app/cli/trace_file.hpp"

namespace ovs {

TraceFile::TraceFile(const std::string& path) : file_(path), sink_(file_.stream()) {}

Observer* TraceFile::watch(const Program& p, const std::string& title) {
  const int pid = static_cast<int>(writers_.size()) + 1;
  writers_.push_back(std::make_unique<ChromeTraceWriter>(sink_, p, title, pid));
  return writers_.back().get();
}

void TraceFile::commit() {
  sink_.finish();
  file_.commit();
}

}  // namespace ovs
