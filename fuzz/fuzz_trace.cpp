// libFuzzer target: trace (what it runs: fuzz/harness.hpp, ovs::fuzz::trace).
#define OVS_FUZZ_TARGET "trace"
#include "fuzz/main.hpp"
