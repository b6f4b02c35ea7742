// Memory as SGLang holds it (../shared/data/sglang_flags_memory.md section B): the KV layout SGLang
// allocates per --kv-cache-dtype, its default --mem-fraction-static, the KV pool that fraction
// leaves, the batch's KV against it, the hottest rank's transients against what the fraction
// leaves outside, and the verdicts (the limit named, tight points marked). Each expected value is
// worked out here from the config, the profile and the flags.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_json.hpp"
#include "helpers.hpp"
#include "memory_fixtures.hpp"
#include "models/cost/rank_spread.hpp"
#include "models/memory/memory_model.hpp"
#include "models/memory/sglang_server.hpp"
#include "sim/core/error.hpp"

using namespace ovs;
using namespace ovs::test;
namespace fs = std::filesystem;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

}  // namespace

TEST_CASE("KV bytes per token per layer as SGLang stores them, by --kv-cache-dtype",
          "[memory][kv]") {
  // DeepSeek-V3 (plain MLA): every one of kv_lora_rank 512 + qk_rope_head_dim 64 values in the
  // dtype (sglang_flags_memory.md B3): BF16 (512 + 64) x 2 = 1152 B, FP8 576 B.
  const ModelConfig& v3 = model("deepseek-v3");
  CHECK(kv_bytes_per_token_per_layer(v3, Dtype::bf16) == (512 + 64) * 2);
  CHECK(kv_bytes_per_token_per_layer(v3, Dtype::bf16) == 1152);
  CHECK(kv_bytes_per_token_per_layer(v3, Dtype::fp8) == 576);
  // auto is BF16 for V3 and FP8 for V4 (A.2 --kv-cache-dtype).
  CHECK(kv_dtype_of(v3, Workload{}) == Dtype::bf16);
  CHECK(kv_dtype_of(model("deepseek-v4-pro"), Workload{}) == Dtype::fp8);
  // DeepSeek-V4: FlashMLA's packed layout, (head_dim 512 - rope 64) FP8 + 64 rope x 2 B + 8 scale
  // bytes = 584 B - what the config's cost-model entry says too.
  const ModelConfig& v4 = model("deepseek-v4-pro");
  CHECK(kv_bytes_per_token_per_layer(v4, Dtype::fp8) == 448 + 64 * 2 + 8);
  CHECK(kv_bytes_per_token_per_layer(v4, Dtype::fp8) == v4.kv_bytes_per_token);
  // V4 in BF16 is an NPU layout, not known here: bad input naming the flag.
  CHECK_THROWS_AS(kv_bytes_per_token_per_layer(v4, Dtype::bf16), InputError);
  // The batch's cache: 64 requests x 4096 tokens x 61 layers x 1152 B (auto), x 576 B in FP8.
  Workload w = decode(64, 4096, 32);
  CHECK(kv_cache_term(v3, w).bytes == 64.0 * 4096 * 61 * 1152);
  w.kv_cache_dtype = Dtype::fp8;
  CHECK(kv_cache_term(v3, w).bytes == 64.0 * 4096 * 61 * 576);
}

TEST_CASE("describe model shows the KV bytes per token per layer for each KV dtype",
          "[memory][kv][describe]") {
  const CliResult r = cli({"describe", "model", "deepseek-v3"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("bf16      1152 B  (kv_lora_rank 512 + qk_rope_head_dim 64) x 2 B") !=
        std::string::npos);
  CHECK(r.out.find("fp8_e4m3   576 B") != std::string::npos);
  CHECK(r.out.find("70272 B per token <- auto") != std::string::npos);  // 1152 x 61 layers
  const CliResult j = cli({"describe", "model", "deepseek-v4-flash", "--json"});
  REQUIRE(j.code == 0);
  const auto rows = nlohmann::json::parse(j.out)["kv_cache_bytes_per_token_per_layer"];
  REQUIRE(rows.size() == 2);
  CHECK(rows[0]["kv_cache_dtype"] == "bf16");
  CHECK(rows[0]["bytes_per_token_per_layer"].is_null());
  CHECK(rows[1]["kv_cache_dtype"] == "fp8_e4m3");
  CHECK(rows[1]["bytes_per_token_per_layer"].get<double>() == 584);
  CHECK(rows[1]["auto"].get<bool>());
}

TEST_CASE("SGLang's default --mem-fraction-static reproduces the worked example of B1",
          "[memory][fraction]") {
  // sglang_flags_memory.md B1: H100 = 81559 MiB, TP8, no DP attention, chunked prefill 8192,
  // decode max batch 512, prefill graph off, no DeepEP: reserved = 512 + 1.5 x 8192 + 8/8 x 1024
  // + 2 x 512 = 14848 MiB, fraction round((81559 - 14848) / 81559, 3) = 0.818.
  SglangServer s;
  s.tp = 8;
  s.chunked_prefill_size = 8192;
  s.decode_max_bs = 512;
  s.decode_graphs = true;
  const DefaultFraction d = sglang_default_fraction(gpu("h100-sxm").memory.sglang, 81559, s);
  CHECK(d.reserved_mib == 512 + 1.5 * 8192 + 1024 + 2 * 512);
  CHECK(d.reserved_mib == 14848);
  CHECK(d.fraction == Approx(0.818).epsilon(1e-12));
  // The profile's device memory is that figure.
  CHECK(device_capacity_bytes(gpu("h100-sxm")) == 81559 * kMiB);
}

TEST_CASE("the default fraction of a DP-attention decode server, and the pool it leaves",
          "[memory][fraction]") {
  // DeepSeek-V3 decode on H800 (81008 MiB), EP 32, 128 requests per GPU: the server the plan
  // launches has --max-running-requests 128 x 32 = 4096 (the instance; SGLang's heuristic counts
  // it whole), --cuda-graph-max-bs 128, DP attention dp = 32, DeepEP with decode graphs:
  //   reserved = max(512 + 1.5 x 4096 + 32/8 x 1024 + 2 x 128 + 3 x 128 x 32, 10240) + 2048.
  const ModelConfig& m = model("deepseek-v3");
  const Workload w = decode(128, 4096, 32);
  const double reserved =
      std::max(512 + 1.5 * 4096 + 4 * 1024 + 2 * 128 + 3 * 128 * 32, 10240.0) + 2048;
  const double f = std::round((81008 - reserved) / 81008 * 1000) / 1000;
  const MemoryUse u = memory_per_gpu(m, gpu("h800-sxm"), w, false);
  CHECK(u.fraction == f);
  CHECK(u.capacity_bytes == 81008 * kMiB);
  // The pool: f x C - every weight term (sglang_flags_memory.md B2).
  double weights = 0;
  for (const auto& t : u.terms)
    if (t.kind == MemoryKind::weights) weights += t.bytes;
  CHECK(u.pool_bytes == Approx(f * 81008 * kMiB - weights).epsilon(1e-12));
  CHECK(term(u, "KV pool").bytes == Approx(u.pool_bytes).epsilon(1e-12));
  // The batch's KV: 128 x 4096 x 61 x 1152 B = 36.8 GB - more than that pool holds.
  CHECK(u.kv_bytes == 128.0 * 4096 * 61 * 1152);
  CHECK(u.kv_bytes > u.pool_bytes);
  CHECK_FALSE(u.fits());
  CHECK(u.limited_by == MemoryLimit::kv_pool);
  // --mem-fraction-static 0.9 gives the pool 0.9 x C - weights, which holds it.
  Workload given = w;
  given.mem_fraction_static = 0.9;
  const MemoryUse g = memory_per_gpu(m, gpu("h800-sxm"), given, false);
  CHECK(g.pool_bytes == Approx(0.9 * 81008 * kMiB - weights).epsilon(1e-12));
  CHECK(g.kv_bytes <= g.pool_bytes);
}

TEST_CASE("the default fraction of a prefill server without chunked prefill counts one rank",
          "[memory][fraction]") {
  // Prefill, 8192 tokens per GPU of 4096-token prompts, EP 32 on H100: the prompt fits the batch,
  // so chunked prefill is off and --max-prefill-tokens 8192: reserved = max(512 + 1.5 x 8192 +
  // 32/8 x 1024, 10240) (no decode graph or DP-attention graph reserve on a PD prefill server).
  const Workload w = prefill(8192, 4096, 32);
  const SglangServer s = sglang_server_of(w);
  CHECK(s.chunked_prefill_size == -1);
  CHECK(s.max_prefill_tokens == 8192);
  const double reserved = 512 + 1.5 * 8192 + 4 * 1024;
  const MemoryUse u = memory_per_gpu(model("deepseek-v3"), gpu("h100-sxm"), w, false);
  CHECK(u.fraction == std::round((81559 - reserved) / 81559 * 1000) / 1000);
  // A prompt longer than the batch is chunked: SGLang's heuristic then counts the whole
  // instance's chunk, 1024 x 32 tokens.
  const SglangServer c = sglang_server_of(prefill(1024, 4096, 32));
  CHECK(c.chunked_prefill_size == 1024 * 32);
  const DefaultFraction d = sglang_default_fraction(gpu("h100-sxm").memory.sglang, 81559, c);
  CHECK(d.reserved_mib == 512 + 1.5 * 1024 * 32 + 4 * 1024);
}

TEST_CASE("the dense FFN is replicated with SGLang's --moe-dense-tp-size 1", "[memory][weights]") {
  // V3's 3 dense layers: 3 x 3 x 7168 x 18432 FP8 weights with a float32 scale per 128 x 128.
  const double fp8 = 1.0 + 4.0 / 16384;
  const double dense = 3 * 3.0 * 7168 * 18432 * fp8;
  Workload w = decode(16, 4096, 32);
  // Unset: tensor parallel over the instance's TP size, the 32 GPUs of the EP group.
  MemoryUse u = memory_per_gpu(model("deepseek-v3"), gpu("h800-sxm"), w, false);
  CHECK(term(u, "weights: dense FFN").bytes == Approx(dense / 32).epsilon(1e-12));
  w.moe_dense_tp_size = 1;
  u = memory_per_gpu(model("deepseek-v3"), gpu("h800-sxm"), w, false);
  CHECK(term(u, "weights: dense FFN").bytes == Approx(dense).epsilon(1e-12));
  // Its activations: each rank's own tokens instead of the 32 ranks' gathered ones. Prefill of
  // 8192 tokens, experts at the mean load: the dense FFN's working set is all x 7168 x 2 B in and
  // out + all x 2 x 18432 / tp x 2 B for gate and up.
  Workload p = prefill(8192, 4096, 32);
  p.imbalance = 1;
  const double gathered = 8192.0 * 32 * 7168 * 2 * 2 + 8192.0 * 32 * 2 * (18432 / 32) * 2;
  const double stream = 8192.0 * 7168 * 2 * 2;
  u = memory_per_gpu(model("deepseek-v3"), gpu("h100-sxm"), p, false);
  CHECK(u.transient_bytes == Approx(stream + gathered).epsilon(1e-12));
  p.moe_dense_tp_size = 1;
  u = memory_per_gpu(model("deepseek-v3"), gpu("h100-sxm"), p, false);
  CHECK(u.transient_bytes < stream + gathered / 4);
}

TEST_CASE("the hottest rank's MoE transients follow its load", "[memory][transient]") {
  // Prefill of 8192 tokens (two 4096-token prompts), EP 32, the dense FFN replicated so that the
  // routed experts' working set is the largest. On the hottest rank at `imb` x the mean:
  // rows = 8192 x top-8 x imb; the received tokens in FP8 with an FP32 scale per 128
  // (7168 + 56 x 4 = 7392 B) stay live beside the grouped GEMM's input and output: gate+up
  // 2 x 2048 x 2 B and the activation 2048 + 16 x 4 B, then the activation and down 7168 x 2 B,
  // the larger pair (2112 + 14336 = 16448 B). Plus the residual stream and the sublayer's input.
  const ModelConfig& m = model("deepseek-v3");
  Workload w = prefill(8192, 4096, 32);
  w.moe_dense_tp_size = 1;
  auto expected = [](double imb) {
    const double rows = std::ceil(8192.0 * 8 * imb);
    return 8192.0 * 7168 * 2 * 2 + rows * (7392 + 16448);
  };
  w.imbalance = 2;
  CHECK(memory_per_gpu(m, gpu("h100-sxm"), w, false).transient_bytes ==
        Approx(expected(2)).epsilon(1e-12));
  w.imbalance = 1;
  CHECK(memory_per_gpu(m, gpu("h100-sxm"), w, false).transient_bytes ==
        Approx(expected(1)).epsilon(1e-12));
  // Left to auto, it is the load the engine gives that rank (rank_spread.hpp).
  w.imbalance = 0;
  const double hot = hot_rank_load_ratio(m, w);
  CHECK(hot >= 1);
  CHECK(memory_per_gpu(m, gpu("h100-sxm"), w, false).transient_bytes ==
        Approx(expected(hot)).epsilon(1e-12));
  // The allocator's fragmentation is the profile's share of it.
  const MemoryUse u = memory_per_gpu(m, gpu("h100-sxm"), w, false);
  CHECK(u.fragmentation_bytes ==
        Approx(gpu("h100-sxm").memory.fragmentation_fraction * u.transient_bytes).epsilon(1e-12));
}

TEST_CASE("transients over (1 - f) x memory - overheads do not fit though weights and pool do",
          "[memory][transient]") {
  // V3 prefill, 16384 tokens per GPU, EP 32 on H100, with the fraction set so that the weights
  // and the KV pool fit with room but the transients do not fit in what is left.
  const ModelConfig& m = model("deepseek-v3");
  const HwProfile& h100 = gpu("h100-sxm");
  Workload w = prefill(16384, 4096, 32);
  w.mem_fraction_static = 0.5;  // a first look, to read the sizes
  const MemoryUse look = memory_per_gpu(m, h100, w, false);
  const double c = 81559 * kMiB;
  // The largest fraction whose remainder cannot hold the transients plus fragmentation:
  // (1 - f) x C - overheads < transients x 1.1  <=>  f > 1 - (overheads + 1.1 x transients) / C.
  const double need = look.transient_bytes * (1 + h100.memory.fragmentation_fraction);
  const double f = 1 - (look.overhead_bytes + need) / c + 0.001;
  w.mem_fraction_static = f;
  const MemoryUse u = memory_per_gpu(m, h100, w, false);
  REQUIRE(u.transient_bytes == look.transient_bytes);
  REQUIRE(u.overhead_bytes == Approx(look.overhead_bytes).epsilon(1e-9));
  CHECK(u.weights_bytes < f * c);                // weights leave a pool
  CHECK(u.kv_bytes <= u.pool_bytes);             // which holds the batch's KV
  CHECK(need > (1 - f) * c - u.overhead_bytes);  // but the transients do not fit
  CHECK_FALSE(u.fits());
  CHECK(u.limited_by == MemoryLimit::transient);
  CHECK(u.margin < 0);
  // Two-batch overlap: one working set at a time, so the same fraction holds it.
  const MemoryUse split = memory_per_gpu(m, h100, w, true);
  CHECK(split.transient_bytes < 0.6 * u.transient_bytes);
  CHECK(split.fits());
}

TEST_CASE("a point within 5 % of a limit is tight", "[memory][tight]") {
  const ModelConfig& m = model("deepseek-v3");
  const HwProfile& h800 = gpu("h800-sxm");
  Workload w = decode(64, 4096, 32);
  w.mem_fraction_static = 0.9;
  const MemoryUse look = memory_per_gpu(m, h800, w, false);
  // The fraction whose pool the batch's KV fills to 97 %: f = (weights + kv / 0.97) / C.
  const double c = 81008 * kMiB;
  w.mem_fraction_static = (look.weights_bytes + look.kv_bytes / 0.97) / c;
  const MemoryUse u = memory_per_gpu(m, h800, w, false);
  CHECK(u.fits());
  CHECK(u.limited_by == MemoryLimit::kv_pool);
  CHECK(u.margin == Approx(0.03).epsilon(1e-6));
  CHECK(u.tight);
  // 90 %: not tight.
  w.mem_fraction_static = (look.weights_bytes + look.kv_bytes / 0.9) / c;
  const MemoryUse v = memory_per_gpu(m, h800, w, false);
  CHECK(v.fits());
  CHECK_FALSE(v.tight);
}

TEST_CASE("the request-to-token table follows SGLang's request count", "[memory][overheads]") {
  // Decode: the plan's --max-running-requests 64 x 32 over 32 DP ranks = 64 requests per rank,
  // int32 rows of context_len 163840 + 4 (+1 row).
  const ModelConfig& m = model("deepseek-v3");
  const MemoryUse d = memory_per_gpu(m, gpu("h800-sxm"), decode(64, 4096, 32), false);
  CHECK(term(d, "request-to-token table").bytes == (64 + 1) * (163840 + 4) * 4.0);
  // Prefill: no --max-running-requests, SGLang's default min(clamp(pool tokens / 163840 x 512,
  // 2048, 4096), pool tokens / 2): a pool of at most ~40 GB holds fewer than 655360 tokens of
  // 70272 B, so the clamp's floor, 2048.
  const MemoryUse p = memory_per_gpu(m, gpu("h100-sxm"), prefill(8192, 4096, 32), false);
  REQUIRE(p.pool_bytes / 70272 < 655360);
  CHECK(term(p, "request-to-token table").bytes == (2048 + 1) * (163840 + 4) * 4.0);
}

TEST_CASE("whatif names the limiting term for both runs", "[memory][whatif]") {
  const auto j = whatif_json({"--model", "deepseek-v3", "--hw", "h100-sxm", "--phase", "prefill",
                              "--tokens-per-gpu", "8192", "--context", "4096", "--ep", "32",
                              "--strategy", "tbo-prefill"});
  for (const char* side : {"baseline", "overlapped"}) {
    INFO(side);
    const std::string limit = j[std::string(side) + "_fits_limited_by"].get<std::string>();
    CHECK((limit == "weights" || limit == "kv_pool" || limit == "transient"));
    CHECK(j[std::string(side) + "_memory_tight"].is_boolean());
    const auto& mem = j[std::string(side) + "_detail"]["memory"];
    CHECK(mem["fits_limited_by"].get<std::string>() == limit);
    CHECK(mem["mem_fraction_static"].get<double>() > 0);
  }
  // --mem-fraction-static is a flag and shows in the detail.
  const auto g = whatif_json({"--model", "deepseek-v3", "--hw", "h100-sxm", "--phase", "prefill",
                              "--tokens-per-gpu", "8192", "--context", "4096", "--ep", "32",
                              "--strategy", "tbo-prefill", "--mem-fraction-static", "0.8"});
  CHECK(g["baseline_detail"]["memory"]["mem_fraction_static"].get<double>() == 0.8);
}

TEST_CASE("bad memory flags and fields: one line naming them, exit 2", "[memory][bad-input]") {
  const std::vector<std::string> base{
      "whatif", "--tokens-per-gpu", "8",         "--context", "1024", "--ep",
      "16",     "--strategy",       "tbo-decode"};
  auto fails = [&](std::vector<std::string> extra, const std::string& needle,
                   std::vector<std::string> a = {}) {
    if (a.empty()) a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    const CliResult r = cli(a);
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find(needle) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  };
  fails({"--mem-fraction-static", "1.2"}, "--mem-fraction-static");
  fails({"--mem-fraction-static", "0"}, "--mem-fraction-static");
  fails({"--mem-fraction-static", "lots"}, "--mem-fraction-static");
  fails({"--kv-cache-dtype", "fp16"}, "--kv-cache-dtype");
  fails({"--moe-dense-tp-size", "4"}, "--moe-dense-tp-size");
  // V4 has no BF16 layout here.
  fails({"--kv-cache-dtype", "bf16"}, "--kv-cache-dtype",
        {"whatif", "--model", "deepseek-v4-flash", "--tokens-per-gpu", "8", "--context", "1024",
         "--ep", "16", "--strategy", "no-overlap"});
  // A sweep spec's field, at its line.
  const fs::path spec = scratch_path("memory-sglang", "bad-fraction.yaml");
  std::ofstream(spec) << "name: f\nbase: {model: deepseek-v3, hw: h800-sxm, context: 1024,\n"
                         "  tokens_per_gpu: 8, ep: 16, mem_fraction_static: 1.5}\n"
                         "strategies: [tbo-decode]\n";
  const CliResult s = cli(
      {"sweep", spec.string(), "--out", scratch_path("memory-sglang", "bad.csv").string(), "-q"});
  CHECK(s.code == 2);
  CHECK(s.err.find(spec.string() + ":3: field 'base.mem_fraction_static'") != std::string::npos);
  // A profile's fragmentation allowance outside [0, 1].
  std::ifstream in(source_path("hw_profiles/h800-sxm.yaml"));
  std::string profile((std::istreambuf_iterator<char>(in)), {});
  const std::string from = "fragmentation_fraction: {value: 0.1";
  REQUIRE(profile.find(from) != std::string::npos);
  profile.replace(profile.find(from), from.size(), "fragmentation_fraction: {value: 1.5");
  const fs::path p = scratch_path("memory-sglang", "bad-fragmentation.yaml");
  std::ofstream(p) << profile;
  std::vector<std::string> a = base;
  a.insert(a.end(), {"--hw", p.string()});
  const CliResult r = cli(a);
  CHECK(r.code == 2);
  CHECK(r.err.find("field 'memory.fragmentation_fraction.value'") != std::string::npos);
}

TEST_CASE("plan drops what does not fit, by limit, and picks within the pool", "[memory][plan]") {
  // DeepSeek-V4-Pro decode on 8 H200s: the weights take most of the GPU, so the KV pool is small;
  // the old check picked a point at 140.6 GB of 141 GB.
  const CliResult r = cli({"plan", "--model", "deepseek-v4-pro", "--hw", "h200-sxm", "--phase",
                           "decode", "--gpus", "8", "--tpot-ms", "50", "--json", "-j", "2"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  int by = 0;
  for (const auto& [limit, n] : j["counts"]["excluded_no_fit_by"].items()) {
    CHECK((limit == "weights" || limit == "kv_pool" || limit == "transient"));
    by += n.get<int>();
  }
  CHECK(by == j["counts"]["excluded_no_fit"].get<int>());
  // Whatever it picks fits: its KV in the pool, at most the GPU's memory in all.
  if (!j["best"].is_null()) {
    const auto& b = j["best"];
    const auto w = whatif_json(
        {"--model", "deepseek-v4-pro", "--hw", "h200-sxm", "--tokens-per-gpu",
         std::to_string(b["tokens_per_gpu"].get<long long>()), "--context", "4096", "--ep",
         std::to_string(b["ep"].get<int>()), "--strategy", b["strategy"].get<std::string>()});
    const auto& mem = w["overlapped_detail"]["memory"];
    CHECK(mem["kv_cache_gb"].get<double>() <= mem["kv_pool_gb"].get<double>());
    CHECK(mem["total_gb"].get<double>() <= mem["capacity_gb"].get<double>());
    CHECK(b["memory_gb"].get<double>() <= mem["capacity_gb"].get<double>());
  }
}

TEST_CASE("a launch whose default --mem-fraction-static is negative says SGLang would not start",
          "[memory]") {
  // Prefill, 20000-token prompts in 2048-token chunks on EP32: SGLang's heuristic (B1) counts the
  // instance's whole chunked-prefill size, 2048 x 32 = 65536 tokens: reserved = 512 + 1.5 x 65536
  // + 32 / 8 x 1024 = 102912 MiB on an 81008 MiB H800, fraction round((81008 - 102912) / 81008,
  // 3) = -0.270.
  const double fraction =
      std::round((81008.0 - (512 + 1.5 * 65536 + 32.0 / 8 * 1024)) / 81008 * 1000) / 1000;
  REQUIRE(fraction == Approx(-0.270));
  const CliResult r = cli({"whatif", "--model", "deepseek-v3", "--hw", "h800-sxm", "--phase",
                           "prefill", "--tokens-per-gpu", "2048", "--context", "20000", "--ep",
                           "32", "--strategy", "tbo-prefill", "--no-alternatives"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("SGLang's default --mem-fraction-static comes out at -0.270"));
  CHECK_THAT(r.out, Catch::Contains("SGLang would not start: pass --mem-fraction-static"));
}
