#include "models/memory/sglang_server.hpp"

namespace ovs {

SglangServer sglang_server_of(const Workload& w) {
  SglangServer s;
  const bool decode = w.phase == Phase::decode;
  s.role = decode ? SglangServer::Role::decode : SglangServer::Role::prefill;
  s.tp = w.ep;
  s.dp = w.dp_attention ? w.ep : 1;
  s.dp_attention = w.dp_attention;
  s.deepep = true;
  s.decode_graphs = decode && w.graphs();
  s.prefill_graphs = !decode && w.graphs();
  if (decode) {
    s.decode_max_bs = w.tokens_per_gpu;
    s.max_running_requests = w.tokens_per_gpu * w.ep;
    s.draft_tokens = w.decode_q_len > 1 ? w.decode_q_len : 0;
  } else {
    s.max_prefill_tokens = w.tokens_per_gpu;
    s.chunked_prefill_size = w.context <= w.tokens_per_gpu ? -1 : w.tokens_per_gpu * w.ep;
  }
  return s;
}

}  // namespace ovs
