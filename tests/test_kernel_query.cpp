// `overlapsim kernel`: the shape numbers a query leaves out come from a model config, not from
// literals in the CLI.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli_json.hpp"
#include "helpers.hpp"
#include "models/cost/kernel_query.hpp"

using namespace ovs;
using namespace ovs::test;
using Json = nlohmann::json;

namespace {

Json kernel_json(std::vector<std::string> args) {
  return cli_json("kernel", std::move(args));
}

}  // namespace

TEST_CASE("a kernel query takes the numbers it leaves out from the model config", "[kernel]") {
  // DeepSeek-V4-Flash: hidden 4096 (models/configs/deepseek-v4-flash.yaml). An RMSNorm over its
  // hidden size is the same kernel as one given --dim 4096 explicitly.
  const Json by_model =
      kernel_json({"--memory", "rmsnorm", "--tokens", "4096", "--model", "deepseek-v4-flash"});
  const Json by_dim = kernel_json({"--memory", "rmsnorm", "--tokens", "4096", "--dim", "4096"});
  CHECK(by_model["time_us"] == by_dim["time_us"]);
  // ... and not the default model's (DeepSeek-V3, hidden 7168): 7168 > 4096 values per token.
  const Json v3 = kernel_json({"--memory", "rmsnorm", "--tokens", "4096"});
  CHECK(double(v3["logical_bytes"]) > double(by_model["logical_bytes"]));
}

TEST_CASE("DeepEP's defaults are DeepSeek-V3's hidden size, top-k and experts", "[kernel][comm]") {
  // models/configs/deepseek-v3.yaml: hidden 7168, top-k 8, 256 routed experts.
  const std::vector<std::string> op{"--deepep", "normal", "--op",     "dispatch",
                                    "--ep",     "32",     "--tokens", "4096"};
  std::vector<std::string> explicit_shape = op;
  for (const char* a : {"--hidden", "7168", "--topk", "8", "--experts", "256"})
    explicit_shape.push_back(a);
  CHECK(kernel_json(op)["time_us"] == kernel_json(explicit_shape)["time_us"]);
}

TEST_CASE("MLA decode attention defaults to V3's absorbed head dims and its FP8 KV bytes",
          "[kernel][attention]") {
  // d_qk = kv_lora_rank 512 + qk_rope_head_dim 64 = 576; d_v = 512; FP8 KV 656 bytes per token.
  const ModelConfig v3 = load_model_config("deepseek-v3");
  const HwProfile hw = load_hw_profile("h800-sxm");
  AttentionQuery q;
  q.batch = 64;
  q.kv_dtype = Dtype::fp8;
  AttentionShape s;
  s.kind = AttentionKind::mla_decode;
  s.batch = 64;
  s.kv_len = 4096;  // the query's default
  s.heads = 128;
  s.d_qk = 576;
  s.d_v = 512;
  s.kv_bytes_per_token = 656;
  const KernelCost by_model = kernel_costs(hw, v3, q, 0).front(), given = attention_cost(hw, s);
  CHECK(by_model.logical_bytes == given.logical_bytes);  // KV bytes read
  CHECK(by_model.useful_flops == given.useful_flops);    // 2 x heads x (d_qk + d_v) per key
  CHECK(by_model.logical_bytes > 0);
}

TEST_CASE("an mHC kernel asked of a model without mHC names the model's file",
          "[kernel][bad-input]") {
  // mHC kernels default to DeepSeek-V4-Pro (hc_mult 4, 20 Sinkhorn iterations); V3 has none.
  CHECK(default_model_for(MemoryQuery{MemoryOp::mhc_pre, 4096, {}, {}, {}, {}}) ==
        "deepseek-v4-pro");
  const CliResult r =
      cli({"kernel", "--memory", "mhc_pre", "--tokens", "4096", "--model", "deepseek-v3"});
  CHECK(r.code == 2);
  CHECK(r.err.find("deepseek-v3.yaml") != std::string::npos);
  CHECK(r.err.find("hc_mult") != std::string::npos);
}
