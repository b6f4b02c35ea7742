#pragma once
// Fixtures for the memory tests: model configs and hardware profiles loaded once per name,
// decode and prefill workloads, and a memory term looked up by its name.
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <string>

#include "models/memory/memory_model.hpp"
#include "workload_fixtures.hpp"

namespace ovs::test {

inline const ModelConfig& model(const std::string& name) {
  static std::map<std::string, ModelConfig> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, load_model_config(name)).first;
  return it->second;
}

inline const HwProfile& gpu(const std::string& name) {
  static std::map<std::string, HwProfile> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, load_hw_profile(name)).first;
  return it->second;
}

// `requests` decoding requests per GPU, each with `context` tokens of KV, on EP `ep`.
inline Workload decode(std::int64_t requests, std::int64_t context, int ep) {
  return workload(Phase::decode, requests, context, ep);
}

// `tokens` prefill tokens per GPU from prompts of `prompt` tokens, on EP `ep`.
inline Workload prefill(std::int64_t tokens, std::int64_t prompt, int ep) {
  return workload(Phase::prefill, tokens, prompt, ep);
}

inline const MemoryTerm& term(const MemoryUse& u, const std::string& name) {
  for (const auto& t : u.terms)
    if (t.name == name) return t;
  FAIL("no term " << name);
  return u.terms.front();
}

}  // namespace ovs::test
