// libFuzzer target: model_config (what it runs: fuzz/harness.hpp, ovs::fuzz::model_config).
#define OVS_FUZZ_TARGET "model_config"
#include "fuzz/main.hpp"
