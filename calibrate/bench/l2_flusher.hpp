#pragma once
// Evicts the L2 cache by writing a buffer twice its size (so that a GEMM's weights or a read's
// input are not left resident by the previous repetition).

#include "device_buffer.hpp"
#include "device_info.hpp"
#include "memory_kernels.hpp"

class L2Flusher {
 public:
  explicit L2Flusher(const DeviceInfo& device)
      : buffer_(static_cast<size_t>(2 * device.l2_bytes + 15) / 16 * 16),
        grid_(full_device_grid(device)) {}

  void flush(cudaStream_t stream) const {
    launch_write(buffer_.get(), buffer_.bytes(), grid_, stream);
  }

 private:
  DeviceBuffer buffer_;
  Grid grid_;
};
