#pragma once
// Internal units: time in microseconds, data in bytes, rates per microsecond.
// Conversions from the units people quote (GB/s, TFLOP/s) live here and nowhere else.

namespace ovs::units {

// 1 GB/s = 1e9 bytes / 1e6 us = 1e3 bytes per us.
inline constexpr double kBytesPerUsPerGBps = 1e3;
// 1 TFLOP/s = 1e12 FLOP / 1e6 us = 1e6 FLOP per us.
inline constexpr double kFlopsPerUsPerTflops = 1e6;
inline constexpr double kBytesPerKiB = 1024.0;
inline constexpr double kBytesPerMiB = 1024.0 * 1024.0;
// Memory sizes are reported in GB = 1e9 bytes (and profiles' hbm.capacity_gb is read so).
inline constexpr double kBytesPerGB = 1e9;

inline constexpr double gbps_to_bytes_per_us(double gbps) {
  return gbps * kBytesPerUsPerGBps;
}
inline constexpr double bytes_per_us_to_gbps(double b) {
  return b / kBytesPerUsPerGBps;
}
inline constexpr double tflops_to_flops_per_us(double tf) {
  return tf * kFlopsPerUsPerTflops;
}
inline constexpr double flops_per_us_to_tflops(double f) {
  return f / kFlopsPerUsPerTflops;
}

}  // namespace ovs::units
