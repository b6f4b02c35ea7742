#include "app/analysis/even_halves.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace ovs {
namespace {

// Both kernels become their mean (Work::average_with; a given duration, its mean). False when
// the two cannot be paired (a given duration beside a modelled one, different tensor lists).
bool even_out(KernelSpec& a, KernelSpec& b) {
  if (a.duration_us.has_value() != b.duration_us.has_value()) return false;
  if (a.duration_us) {
    const double d = 0.5 * (*a.duration_us + *b.duration_us);
    a.duration_us = b.duration_us = d;
    return true;
  }
  Work& x = a.work;
  Work& y = b.work;
  if (x.reads.size() != y.reads.size() || x.writes.size() != y.writes.size()) return false;
  x.average_with(y);
  return true;
}

}  // namespace

void EvenHalves::adjust(BuiltProgram& b) {
  unpaired = 0;
  // (layer, kernel_name_id(op, kernel), occurrence) -> micro-batch A's kernel.
  using Key = std::tuple<int, int, int>;
  std::map<Key, int> a_kernels;
  std::map<std::tuple<int, int, int>, int> seen;  // occurrences so far, by micro-batch
  auto key_of = [&](size_t k) {
    const KernelInfo& i = b.info[k];
    const int name = kernel_name_id(i.op, i.kernel);
    const int n = seen[{i.layer, name, i.micro_batch}]++;
    return Key{i.layer, name, n};
  };
  std::vector<std::pair<size_t, Key>> b_kernels;
  for (size_t k = 0; k < b.info.size(); ++k) {
    b.program.kernels[k].work_class = -1;  // kernels of one class may now differ
    if (b.info[k].layer < 0) continue;     // the whole batch's (embedding, LM head)
    if (b.info[k].micro_batch == 0) a_kernels.emplace(key_of(k), static_cast<int>(k));
    if (b.info[k].micro_batch == 1) b_kernels.emplace_back(k, key_of(k));
  }
  size_t paired = 0;
  for (const auto& [k, key] : b_kernels) {
    const auto it = a_kernels.find(key);
    if (it != a_kernels.end() &&
        even_out(b.program.kernels[static_cast<size_t>(it->second)], b.program.kernels[k]))
      ++paired;
  }
  unpaired = static_cast<int>(a_kernels.size() + b_kernels.size() - 2 * paired);
  b.program.shape = ShapeToken();  // the numbers changed outside the builder
}

bool same_halves(const MicroBatch& a, const MicroBatch& b) {
  if (a.tokens != b.tokens || a.sequences != b.sequences) return false;
  auto sorted = [](std::vector<Segment> v) {
    std::sort(v.begin(), v.end(), [](const Segment& x, const Segment& y) {
      return std::tie(x.q_len, x.kv_len, x.count) < std::tie(y.q_len, y.kv_len, y.count);
    });
    return v;
  };
  const auto x = sorted(a.segments), y = sorted(b.segments);
  return std::equal(x.begin(), x.end(), y.begin(), y.end(), [](const Segment& s, const Segment& t) {
    return s.q_len == t.q_len && s.kv_len == t.kv_len && s.count == t.count;
  });
}

}  // namespace ovs
