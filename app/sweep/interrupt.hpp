#pragma once
// SIGINT / SIGTERM while a sweep runs: the handler only records the signal; the sweep's writer
// sees it, stops handing out points, writes every complete point it already has, and returns,
// so the file ends on a whole point and --resume continues from there. The previous handlers
// are restored when the guard goes out of scope.
#include <csignal>

namespace ovs {

class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  // The signal received since the guard was made (SIGINT, SIGTERM), or 0.
  static int signal_received();

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

}  // namespace ovs
