// SGLang's default --mem-fraction-static (../shared/data/sglang_flags_memory.md B1, server_args.py
// _handle_gpu_memory_settings), in MiB:
//   activation_tokens = decode server: max((max_running_requests or decode_max_bs or 1)
//                                          x (draft tokens or 1), min_activation_tokens)
//                       else: max(chunked_prefill_size, min) when chunked prefill is on,
//                             max(max_prefill_tokens, min) when it is off
//   graphs   = 2 x decode_max_bs                  (decode graph on, not a PD prefill server)
//            + 3 x decode_max_bs x dp             (DP attention, not a PD prefill server)
//              (+ 1.5 x decode_max_bs x dp when decode_max_bs > 300)
//            + 1536                               (prefill graph on, not a PD decode server; MLA)
//   reserved = max(512 + 1.5 x activation_tokens + tp x pp / 8 x 1024 + graphs, 10240 on GPUs
//              over 60 GiB) + 2048 (DeepEP with the decode graph on, not a PD prefill server)
//   fraction = round((GPU MiB - reserved) / GPU MiB, 3)
// The constants are the profile's memory.sglang_reserve (each with its source); SGLang counts
// chunked_prefill_size and max_running_requests for the whole instance, before dividing them
// over the DP ranks. Both families are MLA here (V4's graph reserve is not read separately).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "models/memory/sglang_server.hpp"

namespace ovs {

DefaultFraction sglang_default_fraction(const HwProfile::MemoryParams::SglangReserve& r,
                                        double gpu_mib, const SglangServer& s) {
  using Role = SglangServer::Role;
  DefaultFraction d;
  std::string tokens_how;
  if (s.role == Role::decode) {
    const double requests = s.max_running_requests > 0 ? double(s.max_running_requests)
                            : s.decode_max_bs > 0      ? double(s.decode_max_bs)
                                                       : 1.0;
    const double draft = s.draft_tokens > 0 ? double(s.draft_tokens) : 1.0;
    d.activation_tokens = std::max(requests * draft, r.min_activation_tokens);
    tokens_how = fmt::format("max({:g} {} x {:g} draft, {:g})", requests,
                             s.max_running_requests > 0 ? "max running requests" : "graph batch",
                             draft, r.min_activation_tokens);
  } else if (s.chunked_prefill_size > 0) {
    d.activation_tokens = std::max(double(s.chunked_prefill_size), r.min_activation_tokens);
    tokens_how = fmt::format("max(chunked prefill {}, {:g})", s.chunked_prefill_size,
                             r.min_activation_tokens);
  } else {
    d.activation_tokens = std::max(double(s.max_prefill_tokens), r.min_activation_tokens);
    tokens_how = fmt::format("max(max prefill tokens {}, {:g})", s.max_prefill_tokens,
                             r.min_activation_tokens);
  }
  const double bs = double(s.decode_max_bs), dp = double(s.dp);
  double graphs = 0;
  if (s.decode_graphs && s.role != Role::prefill) graphs += r.decode_graph_per_bs_mib * bs;
  if (s.dp_attention && s.role != Role::prefill) {
    graphs += r.dp_attention_per_bs_mib * bs * dp;
    if (bs > r.large_bs_threshold) graphs += r.large_bs_dp_attention_per_bs_mib * bs * dp;
  }
  if (s.prefill_graphs && s.role != Role::decode) graphs += r.mla_prefill_graph_mib;
  const double gpus = double(s.tp) * double(s.pp) / 8.0 * r.per_8_gpus_mib;
  const double sum = r.base_mib + r.per_activation_token_mib * d.activation_tokens + gpus + graphs;
  d.reserved_mib = std::max(sum, r.floor_mib);
  const bool deepep = s.deepep && s.decode_graphs && s.role != Role::prefill;
  if (deepep) d.reserved_mib += r.deepep_decode_graph_mib;
  d.fraction = std::round((gpu_mib - d.reserved_mib) / gpu_mib * 1000.0) / 1000.0;
  d.how = fmt::format(
      "SGLang's default (sglang_flags_memory.md B1): reserved = max({:g} + {:g} x {:g} "
      "activation tokens [{}] + {} x {} / 8 x {:g} + {:g} graphs, {:g}){} = {:g} MiB; "
      "round(({:g} - {:g}) / {:g}, 3) = {:.3f}",
      r.base_mib, r.per_activation_token_mib, d.activation_tokens, tokens_how, s.tp, s.pp,
      r.per_8_gpus_mib, graphs, r.floor_mib,
      deepep ? fmt::format(" + {:g} DeepEP", r.deepep_decode_graph_mib) : std::string(),
      d.reserved_mib, gpu_mib, d.reserved_mib, gpu_mib, d.fraction);
  return d;
}

}  // namespace ovs
