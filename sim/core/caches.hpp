#pragma once
// One switch for every memo cache of a run (GEMM tile choices, layer plans, routing statistics,
// kernel times alone, a what-if's baseline run shared by its strategies): off, every value is
// computed afresh. The caches must not change a result: `--no-cache` and a test compare the bytes.
namespace ovs {

void set_caches_enabled(bool on);
bool caches_enabled();

// Turns the caches off (or leaves them) for one scope, restoring the previous setting after.
class CachesOff {
 public:
  explicit CachesOff(bool off) : was_(caches_enabled()) {
    if (off) set_caches_enabled(false);
  }
  ~CachesOff() { set_caches_enabled(was_); }
  CachesOff(const CachesOff&) = delete;
  CachesOff& operator=(const CachesOff&) = delete;

 private:
  bool was_;
};

}  // namespace ovs
