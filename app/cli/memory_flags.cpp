#include "app/cli/memory_flags.hpp"

#include "app/cli/flag_checks.hpp"

namespace ovs {

void add_memory_flags(CLI::App* cmd, MemoryWords& words, bool any_tp) {
  cmd->add_option("--mem-fraction-static", words.mem_fraction_static,
                  "SGLang's share of GPU memory for weights and the KV pool, in (0, 1); auto: "
                  "SGLang's own default for the launch (sglang_flags_memory.md B1)")
      ->capture_default_str();
  cmd->add_option("--kv-cache-dtype", words.kv_cache_dtype,
                  "SGLang's KV cache dtype: auto (the model's: BF16 for V3, FP8 for V4), bf16 or "
                  "fp8_e4m3")
      ->check(flags::one_of({"auto", "bf16", "fp8_e4m3"}))
      ->capture_default_str();
  auto* tp =
      cmd->add_option("--moe-dense-tp-size", words.moe_dense_tp_size,
                      any_tp ? "SGLang's TP size of the dense layers' FFN: auto (TP over the "
                               "EP GPUs), 1 (replicated on every GPU) or the EP size"
                             : "SGLang's TP size of the dense layers' FFN: auto (TP over "
                               "the EP GPUs) or 1 (replicated on every GPU)");
  tp->capture_default_str();
  if (!any_tp) tp->check(flags::one_of({"auto", "1"}));
}

}  // namespace ovs
