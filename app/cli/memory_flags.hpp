#pragma once
// SGLang's memory flags, the same on every command that checks a fit (whatif, search, plan):
// --mem-fraction-static, --kv-cache-dtype and --moe-dense-tp-size (models/memory/).
#include <CLI/CLI.hpp>

#include "app/analysis/request.hpp"

namespace ovs {

// `any_tp`: --moe-dense-tp-size may also be the EP size (one EP size: whatif, search); a plan
// over several EP sizes takes auto or 1 only.
void add_memory_flags(CLI::App* cmd, MemoryWords& words, bool any_tp = true);

}  // namespace ovs
