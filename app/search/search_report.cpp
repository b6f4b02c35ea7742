// The search's outputs: the terminal report and one JSON object.
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "app/search/search_run.hpp"
#include "app/strategy/sglang_gate.hpp"

namespace ovs {

using Json = nlohmann::ordered_json;

namespace {

std::string ms(double us) {
  return fmt::format("{:.2f} ms", us / 1000);
}

// "one batch, DeepEP normal" / "two micro-batches, DeepEP low_latency, side streams".
std::string shape_of(const Strategy& s, const GainSplit& g) {
  std::string out = s.two_batch_overlap ? "two micro-batches" : "one batch";
  out += ", DeepEP " + g.best_mode;
  if (g.best_caps_sms) out += ", DeepGEMM SMs capped";
  if (!s.side_streams.empty()) out += ", side streams";
  return out;
}

}  // namespace

void write_search_report(std::ostream& out, const SearchReport& s, const SearchRequest& r) {
  for (size_t i = 0; i < s.per_type.size(); ++i) {
    const auto& [type, ls] = s.per_type[i];
    out << fmt::format(
        "layer type {}: {} of {} candidates simulated ({}, {} of {} branches pruned by bound) in "
        "{:.3f} s\n",
        to_string(type), ls.stats.evaluated, ls.stats.space,
        ls.stats.exhaustive ? "exhaustive" : "beam search", ls.stats.pruned_branches,
        ls.stats.branches, s.seconds_per_type[i]);
    for (size_t k = 0; k < std::min<size_t>(3, ls.top.size()); ++k)
      out << fmt::format(
          "  {:>10.1f} us/layer  {}{}\n", ls.top[k].us, ls.top[k].c.describe(),
          ls.top[k].c.tbo ? fmt::format(" (delta {})", ls.top[k].c.delta) : " (one batch)");
  }
  for (const auto& f : s.failures) out << "  " << f << "\n";
  out << fmt::format("\nfull model, {}:\n",
                     r.latency_bound_us > 0
                         ? fmt::format("by throughput within {:.0f} us", r.latency_bound_us)
                         : std::string("by forward time"));
  out << fmt::format("  {:>12} {:>10} {:>10} {:>8}  {}\n", "forward us", "vs SGLang", "tokens/s",
                     fmt::format("GB/{:.0f}", s.capacity_gb), "strategy");
  for (const auto& x : s.ranked)
    out << fmt::format("  {:>12.1f} {:>+9.1f}% {:>10} {:>8.1f}  {}\n", x.forward_us,
                       100 * (s.shipped.forward_us / x.forward_us - 1),
                       x.fits ? fmt::format("{:.0f}", x.tokens_per_s_per_gpu) : "no fit",
                       x.memory_gb, x.description);
  const auto& best = s.ranked.front();
  if (!best.fits)
    out << fmt::format(
        "\nno strategy fits in the {:.1f} GB of HBM per GPU as SGLang holds it; the times "
        "below are what the simulation gives if the memory existed\n",
        s.capacity_gb);
  const GainSplit& g = s.gain;
  const bool faster = best.forward_us <= s.shipped.forward_us;
  out << fmt::format("\nbest: {} ({}), {:.1f} % {} than SGLang's shipped '{}' ({})\n",
                     ms(best.forward_us), shape_of(best.strategy, g),
                     faster ? 100 * (s.shipped.forward_us / best.forward_us - 1)
                            : 100 * (best.forward_us / s.shipped.forward_us - 1),
                     faster ? "faster" : "slower", s.shipped.strategy.name,
                     ms(s.shipped.forward_us));
  const std::string mode_row = g.best_mode == g.default_mode
                                   ? "DeepEP mode (kept: " + g.best_mode + ")"
                                   : "switching DeepEP to " + g.best_mode;
  const std::string overlap_row = "overlap (" + g.overlap_words + ")";
  out << fmt::format(
      "where its gain over no overlap ({}, DeepEP {}) comes from:\n"
      "  {:<40} {:>+10.1f} us\n"
      "  {:<40} {:>+10.1f} us\n"
      "  {:<40} {:>+10.1f} us\n"
      "  {:<40} {:>+10.1f} us\n",
      ms(g.baseline_us), g.default_mode, mode_row, g.from_mode_us(), "DeepGEMM SM split",
      g.from_sm_split_us(), overlap_row, g.from_overlap_us(), "total", g.baseline_us - g.best_us);
  if (!g.best_overlaps)
    out << "the pick does not overlap: its gain is the DeepEP mode and SM split, not overlap\n";
  else if (std::fabs(g.from_mode_us() + g.from_sm_split_us()) > std::fabs(g.from_overlap_us()))
    out << "most of the pick's gain is the DeepEP mode and SM split, not overlap\n";
  for (const auto& c : s.caveats)
    out << "caveat (README, What is not modelled yet): " << c.text << "\n";
  for (const auto* why : {&s.shipped_outside_sglang, &s.baseline_outside_sglang})
    if (!why->empty()) out << kOutsideSglangWarning << *why << "\n";
}

void write_search_json(std::ostream& out, const SearchReport& s, const SearchRequest& r) {
  Json j;
  const Workload& w = r.base.workload;
  j["model"] = r.base.model;
  j["hardware"] = r.base.hw;
  j["phase"] = w.phase == Phase::prefill ? "prefill" : "decode";
  j["tokens_per_gpu"] = w.tokens_per_gpu;
  j["context"] = w.context;
  j["ep"] = w.ep;
  Json types = Json::array();
  for (size_t i = 0; i < s.per_type.size(); ++i) {
    const auto& [type, ls] = s.per_type[i];
    Json top = Json::array();
    for (const auto& t : ls.top)
      top.push_back({{"us_per_layer", t.us},
                     {"candidate", t.c.describe()},
                     {"two_micro_batches", t.c.tbo},
                     {"delta", t.c.delta}});
    types.push_back({{"layer_type", to_string(type)},
                     {"candidates", ls.stats.space},
                     {"simulated", ls.stats.evaluated},
                     {"exhaustive", ls.stats.exhaustive},
                     {"branches", ls.stats.branches},
                     {"pruned_branches", ls.stats.pruned_branches},
                     {"top", top}});
  }
  j["layer_types"] = types;
  if (!s.failures.empty()) j["failed_programs"] = s.failures;
  Json ranked = Json::array();
  for (const auto& x : s.ranked)
    ranked.push_back({{"description", x.description},
                      {"forward_us", x.forward_us},
                      {"vs_shipped", s.shipped.forward_us / x.forward_us - 1},
                      {"tokens_per_s_per_gpu", x.fits ? Json(x.tokens_per_s_per_gpu) : Json()},
                      {"memory_gb", x.memory_gb},
                      {"fits", x.fits}});
  j["ranked"] = ranked;
  j["shipped"] = {{"strategy", s.shipped.strategy.name}, {"forward_us", s.shipped.forward_us}};
  j["baseline_us"] = s.baseline_us;
  const GainSplit& g = s.gain;
  j["best"] = {{"description", s.ranked.front().description},
               {"forward_us", s.ranked.front().forward_us},
               {"overlaps", g.best_overlaps},
               {"overlap", g.overlap_words},
               {"deepep_mode", g.best_mode},
               {"yaml", s.best_yaml}};
  j["gain_split"] = {{"baseline_us", g.baseline_us},
                     {"baseline_deepep_mode", g.default_mode},
                     {"from_deepep_mode_us", g.from_mode_us()},
                     {"from_sm_split_us", g.from_sm_split_us()},
                     {"from_overlap_us", g.from_overlap_us()},
                     {"best_us", g.best_us}};
  Json cav = Json::array();
  for (const auto& c : s.caveats) cav.push_back({{"key", c.key}, {"text", c.text}});
  j["caveats"] = cav;
  auto gate = [](const std::string& why) { return why.empty() ? Json(nullptr) : Json(why); };
  j["shipped_outside_sglang"] = gate(s.shipped_outside_sglang);
  j["baseline_outside_sglang"] = gate(s.baseline_outside_sglang);
  out << j.dump(2) << "\n";
}

}  // namespace ovs
