#include "calibrate/import/kernel_families.hpp"

#include <array>
#include <initializer_list>

namespace ovs::trace {
namespace {

struct Rule {
  std::string_view family;
  std::initializer_list<std::string_view> substrings;
};

// See kernel_families.hpp for why the order is what it is.
const std::array<Rule, 7> kRules{{
    {"deepep", {"deep_ep", "deepep", "dpsk::ep::", "internode", "intranode"}},
    {"nccl", {"nccl"}},
    {"attention", {"flash", "fmha"}},
    {"cast", {"cast", "transpose", "quant"}},
    {"gemm", {"gemm", "Gemm", "GEMM", "sm90_xmma", "cublas", "cutlass"}},
    {"norm", {"norm"}},
    {"elementwise", {"elementwise", "vectorized", "unrolled"}},
}};

}  // namespace

std::string_view kernel_family(std::string_view name) {
  for (const Rule& r : kRules)
    for (std::string_view s : r.substrings)
      if (name.find(s) != std::string_view::npos) return r.family;
  return "other";
}

bool is_communication_family(std::string_view family) {
  return family == "deepep" || family == "nccl";
}

const std::vector<std::string_view>& kernel_family_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> v;
    for (const Rule& r : kRules) v.push_back(r.family);
    v.push_back("other");
    return v;
  }();
  return names;
}

}  // namespace ovs::trace
