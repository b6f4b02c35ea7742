// libFuzzer target: hw_profile (what it runs: fuzz/harness.hpp, ovs::fuzz::hw_profile).
#define OVS_FUZZ_TARGET "hw_profile"
#include "fuzz/main.hpp"
