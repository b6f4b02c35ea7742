#include "app/analysis/request.hpp"

#include "sim/core/error.hpp"

namespace ovs {

const char* const kNormalModeUnderCudaGraphs =
    "DeepEP normal mode blocks the host on its counts and cannot be captured in a CUDA graph";

std::string RequestSource::field(const std::string& name) const {
  if (!file.empty()) return name;
  std::string flag = "--" + name;
  for (char& c : flag)
    if (c == '_') c = '-';
  return flag;
}

void RequestSource::fail(const std::string& name, const std::string& message) const {
  if (file.empty()) throw flag_error(field(name), message);
  const auto line = lines.find(name);
  throw InputError(file, line == lines.end() ? 0 : line->second, field(name), message);
}

Workload resolve_workload(const WorkloadWords& asked, const RequestSource& from) {
  Workload w;
  if (asked.phase != "prefill" && asked.phase != "decode")
    from.fail("phase", "expected prefill or decode, got '" + asked.phase + "'");
  w.phase = asked.phase == "prefill" ? Phase::prefill : Phase::decode;
  w.tokens_per_gpu = asked.tokens_per_gpu;
  w.context = asked.context;
  w.ep = asked.ep;
  w.gpus_per_node = asked.gpus_per_node;
  w.redundant_experts = asked.redundant_experts;
  w.imbalance = asked.imbalance;
  w.decode_q_len = asked.decode_q_len;
  const std::string& g = asked.cuda_graphs;
  if (g == "on" || g == "true")
    w.cuda_graphs = true;
  else if (g == "off" || g == "false")
    w.cuda_graphs = false;
  else if (g != "auto")
    from.fail("cuda_graphs", "expected on, off or auto, got '" + g + "'");
  const std::string& d = asked.deepep_mode;
  if (d == "normal")
    w.deepep_mode = DeepepMode::normal;
  else if (d == "low_latency")
    w.deepep_mode = DeepepMode::low_latency;
  else if (d != "auto")
    from.fail("deepep_mode", "expected normal, low_latency or auto, got '" + d + "'");
  return resolve_workload(w, from);
}

Workload resolve_workload(Workload w, const RequestSource& from) {
  if (!settle_cuda_graphs(w)) from.fail("cuda_graphs", kNormalModeUnderCudaGraphs);
  return w;
}

bool allows_normal_mode(const Workload& w) {
  return !w.cuda_graphs.value_or(false);
}

bool settle_cuda_graphs(Workload& w) {
  if (w.mode() != DeepepMode::normal) return true;
  if (!allows_normal_mode(w)) return false;
  w.cuda_graphs = false;
  return true;
}

Workload in_nvlink_domain(Workload w, const HwProfile& hw) {
  if (w.gpus_per_node != 0) return w;
  w.gpus_per_node = gpus_per_node_or_domain(hw, 0);
  return w;
}

Workload for_strategy(Workload w, const Strategy& s) {
  if (!w.deepep_mode && s.deepep_mode) w.deepep_mode = s.deepep_mode;
  if (!settle_cuda_graphs(w))
    throw InputError(s.file, 1, "deepep_mode",
                     std::string(kNormalModeUnderCudaGraphs) + " (--cuda-graphs on)");
  return w;
}

}  // namespace ovs
