// libFuzzer target: strategy (what it runs: fuzz/harness.hpp, ovs::fuzz::strategy).
#define OVS_FUZZ_TARGET "strategy"
#include "fuzz/main.hpp"
