#include "app/sweep/interrupt.hpp"

namespace ovs {
namespace {

volatile std::sig_atomic_t g_signal = 0;

void record_signal(int sig) {
  g_signal = sig;
}

}  // namespace

InterruptGuard::InterruptGuard() {
  g_signal = 0;
  struct sigaction sa {};
  sa.sa_handler = record_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // writes and waits in progress carry on
  sigaction(SIGINT, &sa, &old_int_);
  sigaction(SIGTERM, &sa, &old_term_);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
}

int InterruptGuard::signal_received() {
  return g_signal;
}

}  // namespace ovs
