// Cost models on hand-checkable shapes. A small test profile (tests/data/test-gpu.yaml) has round
// numbers so the arithmetic in each comment can be checked by hand.
#include <catch2/catch.hpp>
#include <cmath>

#include "helpers.hpp"
#include "models/cost/attention.hpp"
#include "models/cost/comm.hpp"
#include "models/cost/gemm.hpp"
#include "models/cost/memory_kernels.hpp"
#include "models/cost/routing.hpp"
#include "sim/engine/kernel_model.hpp"

using namespace ovs;
using namespace ovs::test;

namespace {
const HwProfile& test_gpu() {
  static const HwProfile p = load_hw_profile(source_path("tests/data/test-gpu.yaml"));
  return p;
}
double solo(const HwProfile& hw, const KernelCost& k) {
  return Engine(hw.engine).solo_time_us(k.spec());
}
// What limits the kernel run alone on `hw`: "compute", "hbm", ...
std::string bound(const HwProfile& hw, const KernelCost& k) {
  return solo_breakdown(hw.engine, k.spec()).bound();
}
}  // namespace

TEST_CASE("GEMM FLOPs and bytes: 2MNK and the operands once", "[gemm]") {
  GemmShape s;
  s.m = 256;
  s.n = 512;
  s.k = 1024;
  s.dtype = Dtype::bf16;
  const KernelCost c = gemm_cost(test_gpu(), s);
  CHECK(c.useful_flops == Approx(2.0 * 256 * 512 * 1024));
  // DeepGEMM's convention: M*K + N*K + 2*M*N (its GB/s column, BRIEF section 7).
  CHECK(c.logical_bytes == Approx(256.0 * 1024 + 512.0 * 1024 + 2.0 * 256 * 512));
  // BF16 operands and output in HBM: 2 B each.
  CHECK(c.work.hbm_bytes == Approx(2.0 * 256 * 1024 + 2.0 * 512 * 1024 + 2.0 * 256 * 512));
}

TEST_CASE("a 32-row micro-batch pays for a 64-row tile", "[gemm]") {
  // test-gpu offers block_m 64 only and block_n 128: M=32 pads to 64 rows.
  GemmShape s;
  s.m = 32;
  s.n = 1024;
  s.k = 1024;
  s.dtype = Dtype::bf16;
  const KernelCost c = gemm_cost(test_gpu(), s);
  CHECK(c.work.tensor_flops[0] == Approx(2.0 * c.useful_flops));
  s.m = 64;
  CHECK(gemm_cost(test_gpu(), s).work.tensor_flops[0] ==
        Approx(gemm_cost(test_gpu(), s).useful_flops));
}

TEST_CASE("wave quantization steps when the tiles exceed the SMs by one", "[gemm]") {
  // test-gpu: 100 SMs, 64x128 tiles. N = 128 (one column of tiles), K large (compute-bound).
  // M = 6400 -> 100 tiles, 1 wave; M = 6401 -> 101 tiles, 2 waves: twice the compute time.
  GemmShape s;
  s.n = 128;
  s.k = 65536;
  s.dtype = Dtype::bf16;
  s.m = 6400;
  const KernelCost one = gemm_cost(test_gpu(), s);
  s.m = 6401;
  const KernelCost two = gemm_cost(test_gpu(), s);
  CHECK(one.waves == 1);
  CHECK(two.waves == 2);
  const double t1 = solo(test_gpu(), one), t2 = solo(test_gpu(), two);
  const double lat = test_gpu().kernels.gemm.fixed_latency_us;
  CHECK((t2 - lat) / (t1 - lat) == Approx(2.0).epsilon(0.02));
}

TEST_CASE("small-M GEMMs are memory-bound, large-M GEMMs compute-bound (H800)", "[gemm]") {
  const HwProfile hw = load_hw_profile("h800-sxm");
  GemmShape s;
  s.n = 7168;
  s.k = 7168;
  s.m = 64;
  CHECK(bound(hw, gemm_cost(hw, s)) == "hbm");
  s.m = 8192;
  CHECK(bound(hw, gemm_cost(hw, s)) == "compute");
}

TEST_CASE("a compute-bound GEMM on half the SMs takes about twice as long", "[gemm]") {
  GemmShape s;
  s.m = 6400;
  s.n = 128;
  s.k = 65536;
  s.dtype = Dtype::bf16;
  const double all = solo(test_gpu(), gemm_cost(test_gpu(), s));
  const double half = solo(test_gpu(), gemm_cost(test_gpu(), s, 50));
  const double lat = test_gpu().kernels.gemm.fixed_latency_us;
  // 100 tiles on 50 SMs: 2 waves instead of 1.
  CHECK((half - lat) / (all - lat) == Approx(2.0).epsilon(0.02));
}

TEST_CASE("MLA decode: 2*b*s_q*h*s_k*(d_k+d_v) FLOPs and the KV read once", "[attention]") {
  AttentionShape s;
  s.kind = AttentionKind::mla_decode;
  s.batch = 4;
  s.q_len = 1;
  s.kv_len = 1000;
  s.heads = 128;
  s.kv_bytes_per_token = 1152;  // BF16 576 values
  const KernelCost c = attention_cost(test_gpu(), s);
  CHECK(c.useful_flops == Approx(2.0 * 4 * 1 * 128 * 1000 * (576 + 512)));
  // KV 4 x 1000 x 1152 B + Q 4 x 128 x 576 x 2 + O 4 x 128 x 512 x 2.
  CHECK(c.work.hbm_bytes == Approx(4.0 * 1000 * 1152 + 4.0 * 128 * 576 * 2 + 4.0 * 128 * 512 * 2));
}

TEST_CASE("decode attention is memory-bound at few heads, compute-bound at many (H800)",
          "[attention]") {
  const HwProfile hw = load_hw_profile("h800-sxm");
  AttentionShape s;
  s.batch = 128;
  s.kv_len = 4096;
  s.heads = 16;
  CHECK(bound(hw, attention_cost(hw, s)) == "hbm");
  s.heads = 128;
  s.q_len = 2;
  CHECK(bound(hw, attention_cost(hw, s)) == "compute");
}

TEST_CASE("routing: distinct ranks of top-8 among 256 experts on 8 ranks", "[comm]") {
  RoutingSpec r;
  r.experts = 256;
  r.topk = 8;
  r.ep_size = 8;
  const RoutingStats st = routing_stats(r);
  // A rank holds 32 experts: P(no hit) = C(224,8)/C(256,8); 8 ranks.
  double p_miss = 1;
  for (int i = 0; i < 8; ++i) p_miss *= double(224 - i) / (256 - i);
  CHECK(st.ranks_per_token == Approx(8 * (1 - p_miss)));
  CHECK(st.nodes_per_token == Approx(1.0));
  CHECK(st.remote_nodes_per_token == Approx(0.0));
}

TEST_CASE("routing: group-limited tokens reach at most top-k-groups nodes", "[comm]") {
  RoutingSpec r;
  r.experts = 256;
  r.topk = 8;
  r.ep_size = 64;
  r.groups = 8;  // one group per node at EP64
  r.topk_groups = 4;
  const RoutingStats st = routing_stats(r);
  CHECK(st.nodes_per_token <= 4.0 + 1e-9);
  CHECK(st.nodes_per_token > 3.5);
  // The sender's node is one of the 4 chosen groups with probability 4/8.
  CHECK(st.nodes_per_token - st.remote_nodes_per_token < 0.5 + 1e-9);
}

TEST_CASE("DeepEP low-latency bytes: one message per token and expert", "[comm]") {
  DeepepShape s;
  s.mode = DeepepMode::low_latency;
  s.tokens = 128;
  s.routing.ep_size = 32;
  const DeepepCost c = deepep_cost(load_hw_profile("h800-sxm"), s);
  // FP8 hidden 7168 + 7168/128 FP32 scales = 7392 B (DeepEP README's byte count).
  CHECK(c.logical_bytes == Approx(128.0 * 8 * 7392));
  REQUIRE(c.kernels.size() == 3);
  CHECK(c.kernels[1].fixed_sms == 0);  // data in flight holds no SM
}

TEST_CASE("a one-CTA scan holds a single SM", "[memory]") {
  const KernelCost c = cumsum_cost(test_gpu(), 256);
  CHECK(c.work.ctas == 1);
  CHECK(solo_breakdown(test_gpu().engine, c.spec()).sms == 1);
}

TEST_CASE("a memory-bound kernel's grid stops at a full GPU, however many bytes", "[memory]") {
  // Found by fuzzing (fuzz/regressions/model_config/): 4.8e31 bytes made ceil(bytes / bytes per
  // CTA) overflow the integer grid. The grid is capped at sm_count x ctas_per_sm (and at one CTA
  // per row for row-wise kernels) before the cast.
  const HwProfile& gpu = test_gpu();
  const std::int64_t full = std::int64_t(gpu.engine.sm_count) * gpu.kernels.memory.ctas_per_sm;
  MemoryKernelShape s{"huge", 1e35, 1e35, 0, 0, 0, {}, {}};
  CHECK(memory_kernel(gpu, s).work.ctas == full);
  s.rows = 3;
  CHECK(memory_kernel(gpu, s).work.ctas == 3);
  s = {"empty", 0, 0, 0, 0, 0, {}, {}};
  CHECK(memory_kernel(gpu, s).work.ctas == 1);
}
