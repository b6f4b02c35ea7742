// The memory model: parameter counts against the published model sizes, each term of the
// per-GPU memory from the config's numbers (the arithmetic is written out here), two-batch
// overlap lowering peak activations, and the fit check against HBM capacity - a side that does
// not fit is reported as such, never as a throughput.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_json.hpp"
#include "helpers.hpp"
#include "memory_fixtures.hpp"
#include "models/memory/memory_model.hpp"
#include "sim/io/csv_reader.hpp"
#include "workload_fixtures.hpp"

using namespace ovs;
using namespace ovs::test;
namespace fs = std::filesystem;

TEST_CASE("parameter counts match the published model sizes", "[memory]") {
  // DeepSeek-V3: 671B total, 37B activated per token (deepseek-ai/DeepSeek-V3 README; models.csv
  // "671B main + MTP"). V4-Flash 284B, V4-Pro 1.6T total (models.csv params total / active, from
  // the HF model cards); 1.6T is given to two digits, so +-3 %.
  const ParamCounts v3 = param_counts(model("deepseek-v3"));
  CHECK(v3.total() == Approx(671e9).epsilon(0.005));
  CHECK(v3.active(8) == Approx(37e9).epsilon(0.02));
  CHECK(param_counts(model("deepseek-v4-flash")).total() == Approx(284e9).epsilon(0.005));
  CHECK(param_counts(model("deepseek-v4-pro")).total() == Approx(1.6e12).epsilon(0.03));
  // The routed experts, exactly: 256 experts x 58 MoE layers x 3 x 7168 x 2048.
  CHECK(v3.routed_experts == 256.0 * 58 * 3 * 7168 * 2048);
  CHECK(v3.moe_layers == 61 - 3);
}

TEST_CASE("DeepSeek-V3 FP8 weights per GPU, term by term from the config", "[memory]") {
  const ModelConfig& m = model("deepseek-v3");
  const double fp8 = 1.0 + 4.0 / 16384;  // FP8 e4m3 plus a float32 scale per 128 x 128 block
  Workload w = decode(16, 4096, 32);
  MemoryUse u = memory_per_gpu(m, gpu("h800-sxm"), w, false);
  // 256 experts / EP 32 = 8 per GPU, 58 MoE layers, gate + up + down of 7168 x 2048.
  const double expert = 3.0 * 7168 * 2048;
  CHECK(term(u, "weights: routed experts").bytes == Approx(8 * 58 * expert * fp8).epsilon(1e-12));
  // MLA per layer: wq_a 7168x1536, wq_b 1536x128x(128+64), wkv_a 7168x(512+64),
  // wkv_b 512x128x(128+128), wo 128x128x7168; every GPU holds all 61 layers (DP attention).
  const double attention =
      7168.0 * 1536 + 1536.0 * 128 * 192 + 7168.0 * 576 + 512.0 * 128 * 256 + 128.0 * 128 * 7168;
  CHECK(term(u, "weights: attention").bytes == Approx(61 * attention * fp8).epsilon(1e-12));
  CHECK(term(u, "weights: shared experts").bytes == Approx(58 * expert * fp8).epsilon(1e-12));
  // Dense FFN of the first 3 layers, tensor parallel over SGLang's TP size (--moe-dense-tp-size
  // unset): the 32 GPUs of the EP group.
  CHECK(term(u, "weights: dense FFN").bytes ==
        Approx(3 * 3.0 * 7168 * 18432 / 32 * fp8).epsilon(1e-12));
  // Embedding and output head, BF16: 2 x 129280 x 7168 x 2 B.
  CHECK(term(u, "weights: embedding and output head").bytes == 2.0 * 129280 * 7168 * 2);
  // 32 redundant experts (EPLB): (256 + 32) / 32 = 9 per GPU.
  w.redundant_experts = 32;
  u = memory_per_gpu(m, gpu("h800-sxm"), w, false);
  CHECK(term(u, "weights: routed experts").bytes == Approx(9 * 58 * expert * fp8).epsilon(1e-12));
  // An EP that does not divide them: the GPU holding the most, ceil(288 / 64) = 5.
  w.ep = 64;
  u = memory_per_gpu(m, gpu("h800-sxm"), w, false);
  CHECK(term(u, "weights: routed experts").bytes == Approx(5 * 58 * expert * fp8).epsilon(1e-12));
}

TEST_CASE("DeepSeek-V4-Pro FP4 experts per GPU", "[memory]") {
  // 384 experts / EP 32 = 12 per GPU x 61 MoE layers x 3 x 7168 x 3072 weights, each FP4 (0.5 B)
  // plus a 1-byte ue8m0 scale per 32.
  const MemoryUse u =
      memory_per_gpu(model("deepseek-v4-pro"), gpu("b200"), decode(16, 4096, 32), false);
  CHECK(term(u, "weights: routed experts").bytes ==
        Approx(12 * 61 * 3.0 * 7168 * 3072 * (0.5 + 1.0 / 32)).epsilon(1e-12));
}

TEST_CASE("KV cache per the model's layout", "[memory]") {
  // V3: 64 requests x 4096 tokens x 61 layers x 1152 B (SGLang's BF16 MLA latent + rope, auto).
  MemoryUse u = memory_per_gpu(model("deepseek-v3"), gpu("h800-sxm"), decode(64, 4096, 32), false);
  CHECK(term(u, "KV cache").bytes == 64.0 * 4096 * 61 * 1152);
  // V4-Pro, one request of 4096 tokens: every layer keeps a 128-token window of 584-byte
  // entries; HCA layers (ratio 128) add 4096 / 128 = 32 entries; CSA layers (ratio 4) add
  // 4096 / 4 = 1024 entries and 1024 indexer keys of 128 FP8 values + a 4-byte scale.
  const ModelConfig& pro = model("deepseek-v4-pro");
  double want = 0;
  for (int ratio : pro.compress_ratios) {
    if (ratio == 128) want += (128 + 32) * 584.0;
    if (ratio == 4) want += (128 + 1024) * 584.0 + 1024 * (128 + 4.0);
  }
  u = memory_per_gpu(pro, gpu("b200"), decode(1, 4096, 32), false);
  CHECK(term(u, "KV cache").bytes == Approx(want).epsilon(1e-12));
  // The compressed cache is what makes long contexts cheap: at 1M tokens V4-Pro stores about a
  // tenth of what V3's latent cache does per sequence (published: 10 % of V3.2's, models.csv).
  // V3.2 in FP8 stores 656 B per layer and 132 B of indexer keys, 61 x 788 = 48068 B per token
  // (sglang_flags_memory.md B3).
  const double v4 = memory_per_gpu(pro, gpu("b200"), decode(1, 1 << 20, 32), false).kv_bytes;
  const double v32 = double(1 << 20) * 61 * (656 + 132);
  CHECK(v4 / v32 < 0.15);
}

TEST_CASE("the DeepEP low-latency buffer follows DeepEP's layout", "[memory]") {
  // Hidden 7168: dispatch message 16 + max(7168 x 2, 7168 + 56 x 4) = 14352 B; combine message
  // 7168 x 2 = 14336 B. Per half: send max(128 x 14352, 256 x 128 x 14336), receive
  // 256 x 128 x 14352, counts 2 x 256 x 4 B; two halves.
  const double send = 256.0 * 128 * 14336, recv = 256.0 * 128 * 14352, counts = 2.0 * 256 * 4;
  CHECK(deepep_low_latency_bytes(7168, 256, 128) == 2 * (send + recv + counts));
  // Decode at EP 32 uses it with SGLang's 128 tokens per rank; a micro-batch dispatching more
  // sizes it up.
  const MemoryUse u =
      memory_per_gpu(model("deepseek-v3"), gpu("h800-sxm"), decode(512, 1024, 32), false);
  CHECK(term(u, "DeepEP buffers").bytes == deepep_low_latency_bytes(7168, 256, 512));
}

TEST_CASE("two-batch overlap lowers the peak activations of a large prefill", "[memory]") {
  const Workload w = workload(Phase::prefill, 16384, 4096, 32);
  const ModelConfig& m = model("deepseek-v3");
  const double one = memory_per_gpu(m, gpu("h800-sxm"), w, false).bytes_of("activations");
  const double two = memory_per_gpu(m, gpu("h800-sxm"), w, true).bytes_of("activations");
  // Both halves hold their residual streams, but only one working set is live at a time: the
  // peak drops, yet stays above half (the streams and the other half's received tokens).
  CHECK(two < one);
  CHECK(two > one / 2);
  // Through whatif: everything else is the same, so the totals differ by exactly that and the
  // allocator's fragmentation on it.
  const auto j = whatif_json({"--model", "deepseek-v3", "--hw", "h800-sxm", "--phase", "prefill",
                              "--tokens-per-gpu", "16384", "--context", "4096", "--ep", "32",
                              "--strategy", "tbo-prefill"});
  const double frag = gpu("h800-sxm").memory.fragmentation_fraction;
  CHECK(j["baseline_memory_gb"].get<double>() - j["overlapped_memory_gb"].get<double>() ==
        Approx((one - two) * (1 + frag) / 1e9).epsilon(1e-9));
}

TEST_CASE("DeepSeek-V3 FP8 fits 8 H200s or 16 H800s, not 8 H800s", "[memory]") {
  // SGLang's DeepSeek usage docs: FP8 V3 serves on 8 x H200 or 2 x 8 x H100/H800 (671 GB of
  // weights do not fit in 8 x 80 GB).
  auto fits = [](const char* hw, const char* ep) {
    const auto j = whatif_json({"--model", "deepseek-v3", "--hw", hw, "--tokens-per-gpu", "16",
                                "--context", "4096", "--ep", ep, "--strategy", "tbo-decode"});
    return j["baseline_fits"].get<bool>();
  };
  CHECK_FALSE(fits("h800-sxm", "8"));
  CHECK(fits("h200-sxm", "8"));
  CHECK(fits("h800-sxm", "16"));
}

TEST_CASE("a side that does not fit is reported as such, never as a throughput", "[memory]") {
  // 10^11 requests per GPU: a KV cache of 10^11 x 4096 x 61 x 1152 B, far beyond the pool that
  // --mem-fraction-static 0.85 leaves.
  const std::vector<std::string> args{"--model",
                                      "deepseek-v3",
                                      "--hw",
                                      "h800-sxm",
                                      "--tokens-per-gpu",
                                      "100000000000",
                                      "--context",
                                      "4096",
                                      "--ep",
                                      "32",
                                      "--strategy",
                                      "tbo-decode",
                                      "--mem-fraction-static",
                                      "0.85"};
  const auto j = whatif_json(args);
  CHECK_FALSE(j["baseline_fits"].get<bool>());
  CHECK_FALSE(j["overlapped_fits"].get<bool>());
  CHECK(j["baseline_fits_limited_by"] == "kv_pool");
  CHECK(j["baseline_detail"]["memory"]["kv_cache_gb"].get<double>() ==
        Approx(1e11 * 4096 * 61 * 1152 / 1e9).epsilon(1e-12));
  CHECK(j["baseline_tokens_per_s_per_gpu"].is_null());
  CHECK(j["overlapped_tokens_per_s_per_gpu"].is_null());
  // The forwards' ratio as simulated; both_fit says SGLang would not run them.
  CHECK(j["speedup"].get<double>() ==
        Approx(j["baseline_us"].get<double>() / j["overlapped_us"].get<double>()));
  CHECK_FALSE(j["both_fit"].get<bool>());
  CHECK(j["verdict"].get<std::string>().rfind("Neither fits in HBM", 0) == 0);
  // The table says "no fit" where the throughput would be; --explain lists every term.
  std::vector<std::string> table{"whatif"};
  table.insert(table.end(), args.begin(), args.end());
  const CliResult t = cli(table);
  CHECK(t.out.find("tokens/s per GPU                           no fit         no fit") !=
        std::string::npos);
  table.push_back("--explain");
  const CliResult e = cli(table);
  REQUIRE(e.code == 0);
  for (const char* term :
       {"Memory per GPU", "weights: routed experts", "weights: attention", "KV pool", "KV cache",
        "activations (peak)", "allocator fragmentation", "DeepEP buffers", "CUDA-graph pool",
        "framework reserve", "request-to-token table", "--mem-fraction-static"})
    CHECK(e.out.find(term) != std::string::npos);
}

TEST_CASE("when only two-batch overlap fits, the verdict says it makes the batch possible",
          "[memory]") {
  const std::vector<std::string> base{
      "--model", "deepseek-v3", "--phase", "prefill",    "--tokens-per-gpu", "16384", "--context",
      "4096",    "--ep",        "32",      "--strategy", "tbo-prefill",      "--hw",  "h800-sxm"};
  auto with_fraction = [&](const std::string& f) {
    std::vector<std::string> a = base;
    a.insert(a.end(), {"--mem-fraction-static", f});
    return whatif_json(a);
  };
  const auto ref = with_fraction("0.5");
  // A fraction whose remainder lies between the two sides' transients (with fragmentation):
  // (1 - f) x C - overheads = their mean.
  auto need = [&](const char* side) {
    const auto& m = ref[std::string(side) + "_detail"]["memory"];
    return m["transient_gb"].get<double>() + m["fragmentation_gb"].get<double>();
  };
  const auto& mem = ref["baseline_detail"]["memory"];
  const double between = (need("baseline") + need("overlapped")) / 2;
  const double f =
      1 - (mem["fixed_overheads_gb"].get<double>() + between) / mem["capacity_gb"].get<double>();
  const auto j = with_fraction(std::to_string(f));
  CHECK_FALSE(j["baseline_fits"].get<bool>());
  CHECK(j["baseline_fits_limited_by"] == "transient");
  CHECK(j["overlapped_fits"].get<bool>());
  CHECK(j["baseline_tokens_per_s_per_gpu"].is_null());
  CHECK(j["overlapped_tokens_per_s_per_gpu"].is_number());
  CHECK(j["verdict"].get<std::string>().find("'no-overlap' does not fit in HBM") == 0);
  CHECK(j["verdict"].get<std::string>().find("'tbo-prefill' fits") != std::string::npos);
}

TEST_CASE("non-fitting sweep points: CSV columns, no speedup, a chart marker", "[memory][sweep]") {
  const fs::path spec = scratch_path("memory", "fit.yaml"), out = scratch_path("memory", "fit.csv"),
                 dir = scratch_path("memory", "fit-report");
  // EP 8 does not fit on an 80 GB H800 (above), EP 16 and 32 do.
  std::ofstream(spec) << "name: fit\nbase: {model: deepseek-v3, hw: h800-sxm, context: 2048, "
                         "tokens_per_gpu: 16}\naxes:\n  - {field: ep, values: [8, 16, 32]}\n"
                         "strategies: [tbo-decode]\n";
  fs::remove_all(dir);
  const CliResult r = cli(
      {"sweep", spec.string(), "--out", out.string(), "-q", "--report", dir.string(), "--x", "ep"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const CsvTable t = CsvTable::load(out.string());
  REQUIRE(t.rows() == 3);
  CHECK(t.at(0, "baseline_fits") == "false");
  CHECK(t.at(0, "overlapped_fits") == "false");
  CHECK(t.at(0, "baseline_fits_limited_by") == "weights");
  CHECK(t.number(0, "baseline_memory_gb") > 80);
  CHECK(t.number(0, "speedup") > 0);  // as simulated; the fits columns say SGLang would not run it
  CHECK(t.at(0, "baseline_tokens_per_s_per_gpu").empty());
  CHECK(t.at(0, "verdict").rfind("Neither fits in HBM", 0) == 0);
  for (size_t i = 1; i < 3; ++i) {
    CHECK(t.at(i, "overlapped_fits") == "true");
    CHECK(t.number(i, "overlapped_memory_gb") <= 81008 * 1048576.0 / 1e9);  // device_mib
    CHECK(t.number(i, "speedup") > 0);
  }
  const std::string svg =
      file_bytes(dir / "speedup-vs-ep-size-gpus--deepseek-v3--decode--h800-sxm.svg");
  CHECK(svg.find("tbo-decode: 8 -> does not fit in HBM") != std::string::npos);
  CHECK(svg.find(">does not fit in HBM</text>") != std::string::npos);  // the legend
}

TEST_CASE("the memory fit check needs the profile's capacity and memory section",
          "[memory][bad-input]") {
  std::string profile = file_bytes(source_path("hw_profiles/h800-sxm.yaml"));
  const fs::path p = scratch_path("memory", "no-memory.yaml");
  std::ofstream(p) << profile.substr(0, profile.find("\nmemory:") + 1);
  const CliResult r = cli({"whatif", "--hw", p.string(), "--tokens-per-gpu", "8", "--context",
                           "1024", "--ep", "16", "--strategy", "tbo-decode"});
  CHECK(r.code == 2);
  CHECK(r.err.rfind("error: " + p.string() + ":1: field 'memory': missing section", 0) == 0);
  // A negative reserve is refused where it is written.
  const fs::path q = scratch_path("memory", "negative-reserve.yaml");
  std::string neg = profile;
  neg.replace(neg.find("framework_reserve_gb: {value: 2"), 31, "framework_reserve_gb: {value: -2");
  std::ofstream(q) << neg;
  const CliResult n = cli({"whatif", "--hw", q.string(), "--tokens-per-gpu", "8", "--context",
                           "1024", "--ep", "16", "--strategy", "tbo-decode"});
  CHECK(n.code == 2);
  CHECK(n.err.find("field 'memory.framework_reserve_gb.value'") != std::string::npos);
  CHECK(std::count(n.err.begin(), n.err.end(), '\n') == 1);
}

TEST_CASE("search shows each ranked strategy's memory and ranks what does not fit last",
          "[memory][search]") {
  // EP 8 on an H800: nothing fits (the weights alone exceed 80 GB), and search says so.
  const CliResult r = cli({"search", "--model", "deepseek-v3", "--hw", "h800-sxm",
                           "--tokens-per-gpu", "16", "--context", "1024", "--ep", "8"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("GB/85") != std::string::npos);  // 81008 MiB as SGLang sees it
  CHECK(r.out.find("no fit") != std::string::npos);
  CHECK(r.out.find("no strategy fits") != std::string::npos);
}
