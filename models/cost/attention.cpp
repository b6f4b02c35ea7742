#include "models/cost/attention.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "models/cost/memory_kernels.hpp"
#include "sim/core/error.hpp"

namespace ovs {

const char* attention_kind_name(AttentionKind k) {
  switch (k) {
    case AttentionKind::mla_decode:
      return "mla_decode";
    case AttentionKind::sparse_decode:
      return "sparse_decode";
    case AttentionKind::dense_prefill:
      return "dense_prefill";
    case AttentionKind::sparse_prefill:
      return "sparse_prefill";
  }
  return "attention";
}

namespace {
constexpr int kHeadTile = 64;  // query rows (heads x query tokens) per tile, FlashMLA-style
constexpr int kKeyBlock = 64;  // keys per block of the KV loop
constexpr int kPrefillTile = 128;
}  // namespace

CtaFootprint attention_footprint(const HwProfile& hw) {
  const AttentionParams& p = hw.kernels.attention;
  CtaFootprint f;
  f.threads = p.cta_threads;
  f.registers_per_thread = p.cta_registers_per_thread;
  f.shared_bytes = p.cta_shared_bytes;
  return f;
}

KernelCost attention_cost(const HwProfile& hw, const AttentionShape& s) {
  if (s.batch <= 0 || s.q_len <= 0 || s.heads <= 0 || s.d_qk <= 0 || s.d_v <= 0)
    throw InputError("", 0, "attention", "batch, q_len, heads and head dims must be positive");
  const bool sparse =
      s.kind == AttentionKind::sparse_decode || s.kind == AttentionKind::sparse_prefill;
  if (sparse && s.topk <= 0) throw InputError("", 0, "topk", "sparse attention needs topk > 0");
  if (!sparse && s.kv_len <= 0) throw InputError("", 0, "kv_len", "must be positive");
  const AttentionParams& p = hw.kernels.attention;
  const double b = double(s.batch), sq = double(s.q_len), sk = double(s.kv_len),
               h = double(s.heads);
  const double dd = double(s.d_qk + s.d_v);
  KernelCost c;
  c.category = KernelCategory::attention;
  c.name = attention_kind_name(s.kind);
  Work& w = c.work;
  double eff = 0;
  double keys_per_query = 0;  // average keys each query row attends
  double key_bytes = 0;
  switch (s.kind) {
    case AttentionKind::mla_decode:
      eff = s.backend && s.backend->mla_decode_efficiency > 0 ? s.backend->mla_decode_efficiency
                                                              : p.mla_decode_efficiency;
      keys_per_query = sk;
      key_bytes = b * sk * s.kv_bytes_per_token;  // the KV of each request once (MQA)
      break;
    case AttentionKind::sparse_decode:
      eff = p.sparse_decode_efficiency;
      keys_per_query = double(s.topk);
      key_bytes = b * sq * double(s.topk) * s.kv_bytes_per_token;  // gathered per query token
      break;
    case AttentionKind::dense_prefill: {
      eff = s.backend && s.backend->prefill_efficiency > 0 ? s.backend->prefill_efficiency
                                                           : p.prefill_efficiency;
      // Causal: query i of a chunk after a prefix attends prefix + i + 1 keys.
      const double prefix = std::max(0.0, sk - sq);
      keys_per_query = prefix + (sq + 1) / 2;
      key_bytes = b * sk * s.kv_bytes_per_token;
      break;
    }
    case AttentionKind::sparse_prefill:
      eff = p.sparse_prefill_efficiency;
      keys_per_query = double(s.topk);
      key_bytes = b * std::max(sk, double(s.topk)) * s.kv_bytes_per_token;
      break;
  }
  c.useful_flops = 2.0 * b * sq * h * keys_per_query * dd;
  const bool decode = s.kind == AttentionKind::mla_decode || s.kind == AttentionKind::sparse_decode;
  // Tiles: decode packs heads x query tokens into 64-row tiles (padding below 64 costs FLOPs);
  // prefill tiles are 128 query rows per head.
  double rows_tiles, padded_rows;
  if (decode) {
    rows_tiles = std::ceil(h * sq / kHeadTile);
    padded_rows = rows_tiles * kHeadTile;
    const double key_blocks = std::ceil(keys_per_query / kKeyBlock);
    w.tiles = static_cast<std::int64_t>(b * rows_tiles * key_blocks);
    w.tensor_flops[static_cast<int>(Dtype::bf16)] =
        2.0 * b * padded_rows * key_blocks * kKeyBlock * dd;
  } else {
    rows_tiles = std::ceil(sq / kPrefillTile);
    padded_rows = rows_tiles * kPrefillTile;
    w.tiles = static_cast<std::int64_t>(b * h * rows_tiles);
    w.tensor_flops[static_cast<int>(Dtype::bf16)] = c.useful_flops * (padded_rows / sq);
  }
  w.compute_efficiency = eff;
  w.ctas = std::min<std::int64_t>(w.tiles, hw.engine.sm_count);  // persistent scheduler
  w.ctas_per_sm = 1;
  w.cta = attention_footprint(hw);
  const double q_bytes = b * sq * h * s.d_qk * 2.0;
  const double o_bytes = b * sq * h * s.d_v * 2.0;
  w.hbm_bytes = q_bytes + o_bytes;
  if (s.kv_tensor.empty())
    w.hbm_bytes += key_bytes;
  else
    w.reads.push_back({s.kv_tensor, key_bytes});
  w.fixed_latency_us = p.fixed_latency_us;
  c.logical_bytes = key_bytes + q_bytes + o_bytes;
  c.detail = fmt::format("{} b={} s_q={} s_k={} h={} d={}+{}{}", c.name, s.batch, s.q_len, s.kv_len,
                         s.heads, s.d_qk, s.d_v, sparse ? fmt::format(" topk={}", s.topk) : "");
  return c;
}

std::vector<KernelCost> indexer_cost(const HwProfile& hw, const IndexerShape& s) {
  if (s.batch <= 0 || s.q_len <= 0 || s.entries <= 0 || s.heads <= 0 || s.head_dim <= 0)
    throw InputError("", 0, "indexer",
                     "batch, q_len, entries, heads and head_dim must be positive");
  const double b = double(s.batch), sq = double(s.q_len), n = double(s.entries);
  // Causal prefill: query i sees the entries up to its position (about half on average).
  const double seen = s.causal ? std::max(1.0, n * 0.5) : n;
  KernelCost logits;
  logits.name = "indexer_logits";
  logits.category = KernelCategory::attention;
  Work& w = logits.work;
  logits.useful_flops = 2.0 * b * sq * s.heads * s.head_dim * seen;
  w.tensor_flops[static_cast<int>(Dtype::fp8)] = logits.useful_flops;
  w.compute_efficiency = hw.kernels.attention.indexer_efficiency;
  w.tiles = static_cast<std::int64_t>(b * std::ceil(sq / kHeadTile) * std::ceil(seen / kKeyBlock));
  w.ctas = std::min<std::int64_t>(std::max<std::int64_t>(w.tiles, 1), hw.engine.sm_count);
  w.cta = attention_footprint(hw);  // a persistent MQA-logits kernel, like the attention kernels
  const double k_bytes = b * n * (s.head_dim + 4.0);  // FP8 keys + FP32 scale
  const double q_bytes = b * sq * s.heads * (s.head_dim + 4.0);
  const double logit_bytes = b * sq * seen * 4.0;  // FP32 scores written
  w.hbm_bytes = k_bytes + q_bytes + logit_bytes;
  if (s.per_row_keys) {
    w.tiles = static_cast<std::int64_t>(b * sq);
    w.l2_bytes += b * sq * seen * (s.head_dim + 4.0);
  }
  w.fixed_latency_us = hw.kernels.attention.fixed_latency_us;
  MemoryKernelShape top;
  top.name = "indexer_topk";
  top.read_bytes = logit_bytes;
  top.write_bytes = b * sq * double(s.topk) * 4.0;
  top.cuda_core_flops = b * sq * seen * 4.0;  // radix select passes
  top.rows = static_cast<std::int64_t>(b * sq);
  return {logits, memory_kernel(hw, top)};
}

}  // namespace ovs
