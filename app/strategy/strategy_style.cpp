#include "app/strategy/strategy_style.hpp"

#include <cstdint>
#include <utility>

namespace ovs {
namespace {

// Ten colours that tell apart on white (Tableau 10, its grey kept for the no-overlap baseline).
constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                    "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#393b79"};
constexpr const char* kDashes[] = {"6 3", "2 2"};  // for names outside the table

// The shipped strategies (strategies/deepseek-v3 and strategies/deepseek-v4; a name shared by
// both families is one strategy to a reader, one style): solid, one colour each.
const std::pair<const char*, const char*> kShipped[] = {
    {"no-overlap", "#7f7f7f"},
    {"sbo", "#1f77b4"},
    {"tbo-decode", "#d62728"},
    {"tbo-prefill", "#ff7f0e"},
    {"multistream", "#2ca02c"},
    {"multistream+tbo-decode", "#9467bd"},
    {"multistream-off", "#8c564b"},
    {"multistream-hip", "#bcbd22"},
    {"c4-c128-parallel", "#e377c2"},
    {"combine-shared-down-tail", "#17becf"},
    {"kv-store-next-indexer", "#393b79"},
};

std::uint32_t fnv1a(const std::string& s) {
  std::uint32_t h = 2166136261u;
  for (unsigned char c : s) {
    h ^= c;
    h *= 16777619u;
  }
  return h;
}

}  // namespace

SeriesStyle strategy_style(const std::string& name) {
  for (const auto& [n, color] : kShipped)
    if (name == n) return {color, ""};
  // Dashed, so a user's own strategy never looks like a shipped one of the same colour.
  const std::uint32_t h = fnv1a(name);
  return {kPalette[h % 10], kDashes[(h / 10) % 2]};
}

std::string dash_attribute(const SeriesStyle& s) {
  return s.dash.empty() ? std::string() : " stroke-dasharray=\"" + s.dash + "\"";
}

}  // namespace ovs
