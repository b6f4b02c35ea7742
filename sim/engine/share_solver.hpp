#pragma once
// Max-min fair sharing of bandwidth resources among running kernels (one solver for HBM, L2 and
// links, as SimGrid's LMM is one solver for every resource model).
//
// Each consumer j progresses at rate x_j (fraction of its work per us) and uses u_jr units of
// resource r per unit of progress; resource r has capacity C_r units per us; x_j <= cap_j, the
// consumer's rate alone (its SMs, its own bandwidth ceiling). The allocation is max-min fair in
// each consumer's dominant share s_j = x_j * max_r(u_jr / C_r) (progressive filling): on a
// single resource this is plain max-min fairness in bytes per us - a consumer that wants less
// than an equal share gets all it wants, the others split the rest equally.
#include <cstring>
#include <vector>

namespace ovs {

class ShareSolver {
 public:
  explicit ShareSolver(int num_resources) : num_resources_(num_resources) {}

  void set_capacities(const std::vector<double>& capacity) { capacity_ = capacity; }
  // A new problem with another number of resources (per-SM-group resources come and go).
  void reset(int num_resources) {
    num_resources_ = num_resources;
    clear();
  }
  int num_resources() const { return num_resources_; }
  // Starts a new problem with the same resources and capacities.
  void clear() { n_ = 0; }
  // Adds a consumer; usage has num_resources entries. Returns its index.
  int add(double cap, const double* usage);
  // Solves; rate()[j] is x_j.
  void solve();
  const std::vector<double>& rate() const { return rate_; }
  int size() const { return n_; }

 private:
  template <int R>
  void solve_with();
  void grow();
  int num_resources_;
  int n_ = 0;  // consumers in the problem
  std::vector<double> capacity_;
  std::vector<double> cap_;    // first n_ entries
  std::vector<double> usage_;  // consumer-major, first n_ x num_resources_ entries
  std::vector<double> rate_;
  // scratch
  std::vector<double> dominant_;
  std::vector<char> active_;
  std::vector<double> remaining_;
  std::vector<double> slope_;
};

}  // namespace ovs
