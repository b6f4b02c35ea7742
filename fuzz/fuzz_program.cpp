// libFuzzer target: program (what it runs: fuzz/harness.hpp, ovs::fuzz::program).
#define OVS_FUZZ_TARGET "program"
#include "fuzz/main.hpp"
