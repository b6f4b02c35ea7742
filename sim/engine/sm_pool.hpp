#pragma once
// The GPU's SMs as the block scheduler sees them: what each SM still has free (CTA slots,
// threads, registers, shared memory) and which kernels' CTAs are resident on it. CTAs are placed
// where they fit, most room first and one CTA per SM per round (the scheduler spreads a grid
// breadth-first), so CTAs of different kernels share an SM when their footprints allow.
//
// SMs in the same state form a group (a count and one state), so a GPU of 132 or 256 SMs is a
// handful of groups: placing or releasing a kernel costs O(groups), not O(SMs).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace ovs {

// Fractions of one SM's capacities that one CTA takes: slot, threads, registers, shared memory.
using CtaShare = std::array<double, 4>;

// Capacities are fractions of 1; sums of shares such as 8 x 1/8 must count as a full SM.
inline constexpr double kSmSlack = 1e-9;

// How many CTAs of `share` fit beside `used` on one SM: the least over capacities of
// floor(room / share), at most 1e6.
inline int ctas_that_fit(const CtaShare& used, const CtaShare& share) {
  std::int64_t fit = 1000000;
  for (int d = 0; d < 4; ++d) {
    if (share[d] <= 0) continue;
    const double room = 1.0 - used[d] + kSmSlack;
    if (room < share[d]) return 0;  // most calls ask about a full SM
    // room >= share > 0, so the quotient is >= 1 and truncation is floor; below `fit` it fits
    // in an int64.
    const double q = room / share[d];
    if (q < static_cast<double>(fit)) fit = static_cast<std::int64_t>(q);
  }
  return static_cast<int>(fit);
}

class SmPool {
 public:
  struct Resident {
    int kernel = 0;
    int ctas = 0;  // per SM of the group
  };
  struct Group {
    int count = 0;  // SMs in this state
    CtaShare used{};
    std::vector<Resident> residents;  // sorted by kernel
  };

  // `kernels`: how many kernels will be given a share (room for their shares up front).
  explicit SmPool(int sm_count, int kernels = 0);

  // The CTA share of kernel k and how many of its CTAs one SM may hold (its design: a
  // persistent GEMM runs one CTA per SM however small it is); set before placing it.
  void set_share(int kernel, const CtaShare& share, int max_per_sm) {
    if (kernel >= static_cast<int>(share_.size())) grow(kernel + 1);
    share_[static_cast<size_t>(kernel)] = share;
    max_per_sm_[static_cast<size_t>(kernel)] = std::max(1, max_per_sm);
  }
  // Places up to `want` more CTAs of kernel k; returns how many were placed.
  int place(int kernel, int want);
  // Frees every CTA of kernel k.
  void release(int kernel);
  // Renames every resident kernel k to k + delta (the fast-forward's shift by whole periods of
  // identical kernels: kernel k + delta has kernel k's share and is not resident yet).
  void shift_kernels(int delta);

  const std::vector<Group>& groups() const { return groups_; }
  int sms_of(int kernel) const { return sms_[kernel]; }  // SMs holding a CTA of the kernel
  int busy_sms() const;                                  // SMs holding any CTA
  int shared_sms() const;                                // SMs holding CTAs of two or more kernels
  int resident_ctas() const;
  // The three counts above in one pass.
  void occupancy(int& busy_sms, int& shared_sms, int& resident_ctas) const;

 private:
  void grow(int kernels);
  void add_resident(Group& g, int kernel, int ctas);
  void recompute_used(Group& g) const;
  static int ctas_of(const Group& g, int kernel);
  void merge_equal_groups();

  std::vector<Group> groups_;
  std::vector<CtaShare> share_;             // by kernel
  std::vector<int> max_per_sm_;             // by kernel
  std::vector<int> sms_;                    // by kernel: SMs holding at least one of its CTAs
  std::vector<std::pair<int, int>> order_;  // scratch: (group, fit)
  // Resident lists of merged-away groups, kept (emptied, capacity intact) for the next split:
  // groups split and merge as kernels start and end, so this saves an allocation per kernel.
  std::vector<std::vector<Resident>> spare_;
};

}  // namespace ovs
