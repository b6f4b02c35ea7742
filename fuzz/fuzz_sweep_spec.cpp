// libFuzzer target: sweep_spec (what it runs: fuzz/harness.hpp, ovs::fuzz::sweep_spec).
#define OVS_FUZZ_TARGET "sweep_spec"
#include "fuzz/main.hpp"
