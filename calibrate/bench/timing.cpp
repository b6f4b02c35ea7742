#include "timing.hpp"

#include <algorithm>
#include <cmath>

double median(std::vector<double> values) {
  if (values.empty()) return std::nan("");
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

EventPairs::EventPairs(int count) : starts_(count), stops_(count) {
  for (int i = 0; i < count; ++i) {
    CUDA_CHECK(cudaEventCreate(&starts_[i]));
    CUDA_CHECK(cudaEventCreate(&stops_[i]));
  }
}

EventPairs::~EventPairs() {
  for (size_t i = 0; i < starts_.size(); ++i) {
    cudaEventDestroy(starts_[i]);
    cudaEventDestroy(stops_[i]);
  }
}

double elapsed_us(cudaEvent_t start, cudaEvent_t stop) {
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  return 1000.0 * static_cast<double>(ms);
}

double EventPairs::elapsed_us(int index) const {
  return ::elapsed_us(starts_[index], stops_[index]);
}

std::vector<double> EventPairs::all_elapsed_us() const {
  std::vector<double> result;
  for (size_t i = 0; i < starts_.size(); ++i) result.push_back(elapsed_us(static_cast<int>(i)));
  return result;
}
