#include "app/sweep/threads.hpp"

#include <algorithm>
#include <thread>

namespace ovs {

int all_cores() {
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

int resolve_jobs(int jobs) {
  return jobs >= 1 ? jobs : all_cores();
}

}  // namespace ovs
