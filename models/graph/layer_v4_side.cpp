// DeepSeek-V4's side branches of the attention prepare (KV write, the compressor, the indexer) as
// each of SGLang's code paths launches them (../shared/data/sglang_v4_platforms.md section 3, the
// table of ops per branch and path; Workload::v4_kernels picks the path).
//
// A branch stage that a path splits into several launches is a group: the kernel named by the
// stage ("compressor_pool") and its parts ("compressor_pool/cat_kv", ...). Strategies place the
// stage; its parts follow on the same stream (program_builder.cpp), and the model's kernel_deps
// name stages only.
#include <algorithm>
#include <cmath>

#include "models/cost/memory_kernels.hpp"
#include "models/graph/layer_builder.hpp"
#include "models/graph/layer_kernels.hpp"
#include "sim/core/error.hpp"

namespace ovs {

using layer::gemm;
using layer::named;

namespace {

struct Small {  // one small launch: its name within the group and its bytes
  const char* name;
  double read, write;
};

void add_group(std::vector<OpKernel>& k, const HwProfile& hw, const std::string& group,
               std::int64_t rows, const std::vector<Small>& ops) {
  for (const auto& o : ops) {
    MemoryKernelShape s;
    s.name = group + "/" + o.name;
    s.read_bytes = o.read;
    s.write_bytes = o.write;
    s.rows = rows;
    k.push_back(named(s.name, memory_kernel(hw, s)));
  }
}

// One call of SGLang's per-request torch compressor (compress_hip.py compress_extend_paged and the
// C128 fallback of compressor_v2.py; the shared file's "~30-40 small torch ops per call
// (where/index/cat/index_put, overlap transforms, softmax*mul*sum, norm, rope)"): 32 launches.
// Which tensor each touches is this project's reading of those ops (an estimate): the projected
// KV and score halves [tokens, width] in FP32 (`half`), the pooled entries [entries, dim] in FP32
// (`pooled`), their RoPE slice, and bookkeeping of a few bytes per entry.
std::vector<Small> torch_compressor_loop(std::int64_t tokens, std::int64_t width,
                                         std::int64_t entries, int dim, int rope, int ratio) {
  const double half = double(tokens) * width * 4.0;
  const double pooled = double(entries) * dim * 4.0;
  const double roped = double(entries) * rope * 4.0;
  const double tail = double(ratio) * width * 4.0;  // the window tail kept in the state
  const double book = double(entries) * 8.0;
  return {
      {"cat_kv", half, half},  // the previous window's tail before the new tokens
      {"cat_score", half, half},
      {"pad_kv", half, half},  // where(): incomplete windows masked
      {"pad_score", half, half},
      {"window_kv", half, half},  // index gather into overlapping windows
      {"window_score", half, half},
      {"ape_add", half, half},  // the score's position bias
      {"softmax", half, half},
      {"mul", 2 * half, half},
      {"sum", half, pooled},
      {"state_kv", tail, tail},  // index_put of the new tail into the state
      {"state_score", tail, tail},
      {"norm_pow", pooled, pooled},
      {"norm_mean", pooled, double(entries) * 4.0},
      {"norm_rsqrt", double(entries) * 4.0, double(entries) * 4.0},
      {"norm_mul", pooled, pooled},
      {"norm_weight", pooled, pooled},
      {"rope_slice", roped, roped},
      {"rope_cos", roped, roped},
      {"rope_sin", roped, roped},
      {"rope_rotate", roped, roped},
      {"rope_add", roped, roped},
      {"rope_cat", pooled, pooled},
      {"to_bf16", pooled, pooled / 2},
      {"positions", book, book},
      {"arange", 0, book},
      {"where_pos", book, book},
      {"index_put", pooled / 2, pooled / 2},
      {"index_put_loc", book, book},
      {"any", book, 4},  // .any() / boolean indexing: scans and a host sync
      {"bool_index", book, book},
      {"nonzero", book, book},
  };
}

}  // namespace

void LayerBuilder::build_v4_side(OpPlan& attn, int layer, const MicroBatch& mb,
                                 const std::string& act, int ratio) const {
  auto& k = attn.kernels;
  auto& deps = attn.kernel_deps;
  const std::int64_t t = mb.tokens;
  const int h = m_.hidden, hd = m_.head_dim, rope = m_.rope_dim;
  const std::string L = "L" + std::to_string(layer) + ".";
  const std::string x = act + "x";
  const bool prefill = w_.phase == Phase::prefill;
  const bool amd = hw_.vendor == "amd";
  const V4Kernels path = w_.v4_kernels;
  if (path == V4Kernels::rocm_2605 && !amd)
    throw InputError(hw_.file, 0, "v4_kernels",
                     "rocm-2605 is a ROCm code path; '" + hw_.name + "' is not an AMD GPU");
  const bool fused = path == V4Kernels::fused;
  const bool fallback = path == V4Kernels::torch_fallback;
  // linear_bf16_fp32 (sglang_v4_platforms.md section 3): one GEMM with FP32 output where it is
  // fused; aiter's GEMM writes BF16 and a separate copy widens it to FP32 on ROCm (SGLang PR
  // 34624); without aiter or DeepGEMM, F.linear(x.float(), w.float()): two casts and an FP32 GEMM.
  auto proj = [&](const std::string& name, std::int64_t n, const std::string& weight) {
    if (fallback) {
      add_group(k, hw_, name, 0,
                {{"x_fp32", double(t) * h * 2, double(t) * h * 4},
                 {"w_fp32", double(h) * n * 2, double(h) * n * 4}});
      MemoryKernelShape g;
      g.name = name;
      g.read_bytes = double(t) * h * 4 + double(h) * n * 4;
      g.write_bytes = double(t) * n * 4;
      g.cuda_core_flops = 2.0 * t * n * h;
      KernelCost c = memory_kernel(hw_, g);
      c.category = KernelCategory::gemm;
      k.push_back(named(name, c));
      return;
    }
    k.push_back(gemm(hw_, name, t, n, h, Dtype::bf16, x, weight, {}, 1, GemmLayout::dense, 0,
                     amd ? 2.0 : 4.0));
    if (amd) add_group(k, hw_, name, 0, {{"fp32", double(t) * n * 2, double(t) * n * 4}});
  };

  // KV write: norm + RoPE + FP8 quant + paged store of [tokens, head_dim]; one fused kernel
  // (set_swa_key_buffer_radix_fused_norm_rope), else 3-5 launches (4; the torch path 5).
  {
    KernelCost kv = norm_rope_cost(hw_, "kv_write", t, hd, rope);
    kv.work.hbm_bytes += double(t) * (m_.kv_bytes_per_token - 2.0 * hd);
    if (fused) {
      k.push_back(named("kv_write", kv));
    } else {
      const double n = double(t) * hd;
      k.push_back(named("kv_write", rmsnorm_cost(hw_, t, hd, false)));
      std::vector<Small> rest{{"rope", double(t) * rope * 2, double(t) * rope * 2},
                              {"fp8_quant", 2 * n, n + double(t) * 4},
                              {"store", n + double(t) * 4, double(t) * m_.kv_bytes_per_token}};
      if (fallback) rest.insert(rest.begin(), {"norm_weight", 2 * n, 2 * n});
      add_group(k, hw_, "kv_write", t, rest);
    }
  }
  deps.push_back({"wqkv_a", "kv_write"});
  deps.push_back({"kv_write", "attention"});
  if (amd) {
    // ROCm's unified-KV path (dsv4/unified_kv_kernels/runtime.py): Triton _swa_scatter_kernel
    // (one program per token) copies the window's K into a BF16 ring, and torch.cumsum turns the
    // lengths into the KV index pointer (a single-block scan: one CU, as seed 2's trace shows).
    k.push_back(
        named("swa_scatter",
              memory_kernel(
                  hw_, {"swa_scatter", double(t) * hd * 2, double(t) * hd * 2, 0, t, 0, {}, {}})));
    k.push_back(
        named("kv_indptr_cumsum", cumsum_cost(hw_, std::max<std::int64_t>(mb.sequences, 1))));
    deps.push_back({"kv_write", "swa_scatter"});
    deps.push_back({"swa_scatter", "attention"});
    deps.push_back({"kv_indptr_cumsum", "attention"});
  }
  const std::int64_t sequences = std::max<std::int64_t>(mb.sequences, 1);
  // A per-request loop (the ROCm and torch compressors): one call per sequence of the batch.
  // In decode the batch goes through once: the ROCm mix as three launches (compress, norm, RoPE:
  // "three separate launches. Each is 4-8 us", SGLang PR 34624), the torch path as one loop.
  auto loop = [&](const std::string& group, std::int64_t width, std::int64_t entries, int dim,
                  int r) {
    if (!prefill) {
      if (fallback) {
        add_group(k, hw_, group, 0, torch_compressor_loop(t, width, entries, dim, rope, r));
      } else {
        const double state = double(t) * 2 * width * 4, pooled = double(entries) * dim * 4;
        add_group(
            k, hw_, group, entries,
            {{"compress", state, pooled}, {"norm", pooled, pooled}, {"rope", pooled, pooled}});
      }
      return;
    }
    for (const auto& seg : mb.segments)
      for (std::int64_t i = 0; i < seg.count; ++i)
        add_group(k, hw_, group, 0,
                  torch_compressor_loop(seg.q_len, width, std::max<std::int64_t>(1, seg.q_len / r),
                                        dim, rope, r));
  };
  if (ratio > 0) {
    // Compressor: the KV and gate projections of x (two overlapping windows when the ratio is
    // 4), softmax-gated pooling over each window against the state, norm + RoPE, then the store
    // into the c4 / c128 cache.
    const int coff = ratio == 4 ? 2 : 1;
    const std::int64_t width = std::int64_t(coff) * hd;
    const std::int64_t entries = std::max<std::int64_t>(1, t / ratio);
    proj("compressor_proj", 2 * width, L + "compressor.w");
    const double state = double(t) * 2 * width * 4;  // FP32
    if (fused) {
      k.push_back(named(
          "compressor_pool",
          memory_kernel(
              hw_, {"compressor_pool", state, double(entries) * hd * 2, state, 0, 0, {}, {}})));
      k.push_back(named("compressor_norm_rope",
                        norm_rope_cost(hw_, "compressor_norm_rope", entries, hd, rope)));
      add_group(k, hw_, "compressor_norm_rope", entries,
                {{"store", double(entries) * hd * 2, double(entries) * m_.kv_bytes_per_token}});
    } else {
      loop("compressor_pool", width, entries, hd, ratio);
      // the quant/pack kernel and the paged store
      k.push_back(
          named("compressor_norm_rope", memory_kernel(hw_, {"compressor_norm_rope",
                                                            double(entries) * hd * 2,
                                                            double(entries) * m_.kv_bytes_per_token,
                                                            0,
                                                            entries,
                                                            0,
                                                            {},
                                                            {}})));
    }
    deps.push_back({"compressor_proj", "compressor_pool"});
    deps.push_back({"compressor_pool", "compressor_norm_rope"});
    deps.push_back({"compressor_norm_rope", "attention"});
  }
  if (ratio != 4) return;
  // Indexer (C4Indexer): its own compressor on x (K side: projection, pooling, norm + RoPE,
  // Hadamard rotation, FP8 quant, store), queries from q_lora (Q side: wq_b, then RoPE +
  // Hadamard + FP8 quant + weight scaling), per-head weights from x; FP8 logits against the
  // compressed keys, then top-k.
  const int ih = m_.index_heads, id = m_.index_head_dim;
  const std::int64_t entries = std::max<std::int64_t>(1, t / 4);
  const double keys = double(entries) * id;
  proj("indexer_k_proj", 2LL * 2 * id, L + "indexer.wk");
  if (fused) {
    k.push_back(named("indexer_k_pool", memory_kernel(hw_, {"indexer_k_pool",
                                                            double(t) * 4 * id * 4,
                                                            double(entries) * id * 2,
                                                            double(t) * 4 * id,
                                                            0,
                                                            0,
                                                            {},
                                                            {}})));
  } else {
    loop("indexer_k_pool", 2LL * id, entries, id, 4);
  }
  {
    // CUDA: norm + RoPE, then Hadamard, FP8 quant and the store; ROCm fuses norm + RoPE +
    // Hadamard (SGLang PR 26253); the loop paths run Hadamard, quant and two stores after it.
    KernelCost kr = norm_rope_cost(hw_, "indexer_k_norm_rope", entries, id, rope);
    if (fused && amd) kr.work.cuda_core_flops += keys * std::log2(double(id));
    if (fused) k.push_back(named("indexer_k_norm_rope", kr));
    std::vector<Small> rest;
    if (fused && !amd) rest.push_back({"hadamard", 2 * keys, 2 * keys});
    if (!fused) rest.push_back({"hadamard", 2 * keys, 2 * keys});
    rest.push_back({"fp8_quant", 2 * keys, keys + double(entries) * 4});
    rest.push_back({"store", keys + double(entries) * 4, keys + double(entries) * 4});
    if (!fused) rest.push_back({"store_scale", double(entries) * 4, double(entries) * 4});
    if (fused) {
      add_group(k, hw_, "indexer_k_norm_rope", entries, rest);
    } else {
      // the first of them carries the stage's name
      MemoryKernelShape s{
          "indexer_k_norm_rope", rest[0].read, rest[0].write, 0, entries, 0, {}, {}};
      s.cuda_core_flops = keys * std::log2(double(id));
      k.push_back(named("indexer_k_norm_rope", memory_kernel(hw_, s)));
      rest.erase(rest.begin());
      add_group(k, hw_, "indexer_k_norm_rope", entries, rest);
    }
  }
  // Q side: wq_b, then RoPE + Hadamard + FP8 quant + weight scale (one fused kernel; 2-4
  // launches on the other paths).
  k.push_back(gemm(hw_, "indexer_q", t, std::int64_t(ih) * id, m_.q_lora_rank, Dtype::fp8,
                   act + "q_lora", L + "indexer.wq", {}));
  {
    const double n = double(t) * ih * id;
    k.push_back(named("indexer_q_quant", memory_kernel(hw_, {"indexer_q_quant",
                                                             2 * n,
                                                             n + double(t) * ih * 4.0,
                                                             n * (std::log2(double(id)) + 4),
                                                             0,
                                                             0,
                                                             {},
                                                             {}})));
    if (!fused) {
      std::vector<Small> q{{"rope", double(t) * ih * rope * 2, double(t) * ih * rope * 2}};
      if (fallback) q.push_back({"hadamard", 2 * n, 2 * n});
      add_group(k, hw_, "indexer_q_quant", t, q);
    }
  }
  k.push_back(gemm(hw_, "indexer_weights", t, ih, h, Dtype::bf16, x, L + "indexer.ww", {}));
  // Glue before the logits (pads, int casts, metadata): 2 on CUDA, 4 on ROCm (two int32 casts
  // for aiter's kernel), 8 on the ROCm mix (with .any() scans and boolean indexing), 10 on the
  // fallbacks.
  {
    const double rows = double(t) * 4, table = double(sequences) * entries * 4;
    std::vector<Small> glue{{"metadata", rows, rows}, {"pad", table, table}};
    if (amd || !fused) {
      glue.push_back({"lens_int32", rows * 2, rows});
      glue.push_back({"table_int32", table * 2, table});
    }
    if (!fused)
      for (const char* n : {"any_valid", "bool_index", "nonzero", "cat_lens"})
        glue.push_back({n, rows, rows});
    if (fallback)
      for (const char* n : {"expand_table", "clamp"}) glue.push_back({n, table, table});
    add_group(k, hw_, "indexer_glue", t, glue);
  }
  std::vector<KernelCost> logits, topk;
  double seen_rows = 0;  // query rows x keys each sees
  for (const auto& seg : mb.segments) {
    IndexerShape is;
    is.batch = seg.count;
    is.q_len = seg.q_len;
    is.entries = std::max<std::int64_t>(1, seg.kv_len / 4);
    is.heads = ih;
    is.head_dim = id;
    is.topk = m_.index_topk;
    is.causal = prefill;
    // aiter's gluon paged-logits kernel is a decode kernel: one workgroup per query row, which
    // reads that row's keys again (sglang_v4_platforms.md section 3, "written for decode").
    is.per_row_keys = path == V4Kernels::rocm_2605;
    auto parts = indexer_cost(hw_, is);
    logits.push_back(parts[0]);
    topk.push_back(parts[1]);
    seen_rows +=
        double(seg.count) * seg.q_len * (prefill ? std::max(1.0, is.entries * 0.5) : is.entries);
  }
  if (fallback) {
    // fp8_paged_mqa_logits_torch (~12 ops): the page table's keys gathered per query row,
    // dequantised to FP32, multiplied with the queries per head, ReLU, weighted, summed over
    // heads, masked; then topk_transform_512_pytorch_vectorized (~20-25 ops incl. torch.topk).
    const double gathered = seen_rows * id;        // FP8 keys per row
    const double per_head = seen_rows * ih * 4.0;  // FP32 [rows, heads, keys]
    const double scores = seen_rows * 4.0;         // FP32 [rows, keys]
    const double q = double(t) * ih * id * 4.0;
    add_group(k, hw_, "indexer_logits", t,
              {{"gather_keys", gathered, gathered},
               {"gather_scale", seen_rows * 4, seen_rows * 4},
               {"keys_fp32", gathered, gathered * 4},
               {"scale_mul", gathered * 4, gathered * 4},
               {"q_fp32", q / 2, q},
               {"einsum", gathered * 4 + q, per_head},
               {"relu", per_head, per_head},
               {"weights_mul", per_head, per_head},
               {"head_sum", per_head, scores},
               {"causal_mask", scores, scores},
               {"fill_inf", scores, scores},
               {"to_out", scores, scores}});
    std::vector<Small> top;
    static const char* kTop[] = {"view",      "pad",    "topk",     "gather", "sort",      "mask",
                                 "where",     "arange", "add_base", "clamp",  "lt",        "and",
                                 "where_idx", "cat",    "int32",    "fill",   "index_put", "cumsum",
                                 "sub",       "min",    "expand",   "contig"};
    for (const char* n : kTop) top.push_back({n, scores, scores / 4});
    add_group(k, hw_, "indexer_topk", t, top);
  } else {
    k.push_back(
        named("indexer_logits", merge_costs(logits, "indexer_logits", hw_.engine.sm_count)));
    k.push_back(named("indexer_topk", merge_costs(topk, "indexer_topk", hw_.engine.sm_count)));
  }
  deps.insert(deps.end(), {{"indexer_k_proj", "indexer_k_pool"},
                           {"indexer_k_pool", "indexer_k_norm_rope"},
                           {"q_a_norm", "indexer_q"},
                           {"indexer_q", "indexer_q_quant"},
                           {"indexer_k_norm_rope", "indexer_logits"},
                           {"indexer_q_quant", "indexer_logits"},
                           {"indexer_weights", "indexer_logits"},
                           {"indexer_glue", "indexer_logits"},
                           {"indexer_logits", "indexer_topk"},
                           {"indexer_topk", "attention"}});
}

}  // namespace ovs
