#pragma once
// Timing: CUDA event pairs around each repetition (GPU time), a steady clock (host time), and
// the median that the CSVs report.

#include <cuda_runtime_api.h>

#include <chrono>
#include <vector>

#include "check.hpp"

double median(std::vector<double> values);

inline double host_now_us() {
  using Clock = std::chrono::steady_clock;
  return std::chrono::duration<double, std::micro>(Clock::now().time_since_epoch()).count();
}

// `count` (start, stop) event pairs, recorded by index and read after a synchronize.
class EventPairs {
 public:
  explicit EventPairs(int count);
  ~EventPairs();
  EventPairs(const EventPairs&) = delete;
  EventPairs& operator=(const EventPairs&) = delete;

  void record_start(int index, cudaStream_t stream) {
    CUDA_CHECK(cudaEventRecord(starts_[index], stream));
  }
  void record_stop(int index, cudaStream_t stream) {
    CUDA_CHECK(cudaEventRecord(stops_[index], stream));
  }
  cudaEvent_t start(int index) const { return starts_[index]; }
  cudaEvent_t stop(int index) const { return stops_[index]; }
  // Milliseconds from cudaEventElapsedTime, in us; the events must have completed.
  double elapsed_us(int index) const;
  std::vector<double> all_elapsed_us() const;

 private:
  std::vector<cudaEvent_t> starts_;
  std::vector<cudaEvent_t> stops_;
};

double elapsed_us(cudaEvent_t start, cudaEvent_t stop);

// Runs `warmup` untimed and `reps` timed repetitions of `work` on `stream`; `prepare` (an L2
// flush, say) runs before each one, outside the timed region. Repetitions are queued without a
// host synchronize in between, so the host stays ahead of the GPU. Returns each rep's GPU time.
template <class Prepare, class Work>
std::vector<double> time_reps_us(cudaStream_t stream, int warmup, int reps, Prepare&& prepare,
                                 Work&& work) {
  for (int i = 0; i < warmup; ++i) {
    prepare();
    work();
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  EventPairs events(reps);
  for (int i = 0; i < reps; ++i) {
    prepare();
    events.record_start(i, stream);
    work();
    events.record_stop(i, stream);
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return events.all_elapsed_us();
}
