// libFuzzer target: csv (what it runs: fuzz/harness.hpp, ovs::fuzz::csv).
#define OVS_FUZZ_TARGET "csv"
#include "fuzz/main.hpp"
