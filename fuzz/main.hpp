#pragma once
// The libFuzzer entry point of one target: the input through fuzz::run_target, the documented
// answers (InputError, SimulationError) accepted, anything else reported and aborted on so that
// libFuzzer keeps the input. With OVS_FUZZ_STRICT=1, an InputError without a line is a finding
// too (to hunt for location-less messages).
#include <cstdio>
#include <cstdlib>
#include <typeinfo>

#include "fuzz/harness.hpp"

#ifndef OVS_FUZZ_TARGET
#error "define OVS_FUZZ_TARGET before including fuzz/main.hpp"
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool strict = [] {
    const char* s = std::getenv("OVS_FUZZ_STRICT");
    return s && *s == '1';
  }();
  auto finding = [](const char* kind, const std::string& what) {
    std::fprintf(stderr, "fuzz finding (%s): %s\n", kind, what.c_str());
    std::abort();
  };
  try {
    ovs::fuzz::run_target(OVS_FUZZ_TARGET, ovs::fuzz::as_text(data, size));
  } catch (const ovs::InputError& e) {
    const std::string what = e.what();
    if (what.find('\n') != std::string::npos) finding("InputError on several lines", what);
    if (strict && e.line() <= 0) finding("InputError without a line", what);
  } catch (const ovs::SimulationError&) {
  } catch (const ovs::fuzz::Finding& e) {
    finding("wrong answer", e.what());
  } catch (const std::exception& e) {
    finding(typeid(e).name(), e.what());
  }
  return 0;
}
