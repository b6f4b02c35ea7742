#pragma once
// Microbenchmark rows as measurements the profile predicts through the cost models and the
// engine's solo time (calibrate/fit/measurements.hpp's Measurement). `family` tags what a row
// informs:
//   gemm          gemm.csv: gemm_cost on the row's shape, dtype and SM target, with the CTA
//                 tile cuBLASLt reported when it did (no split-K); per-tensor FP8 (fp8_e4m3)
//                 pays no block-scale promotion (k_iteration_us), block-scaled FP8 does
//   hbm           hbm.csv: bytes_moved of DRAM traffic on sms_used SMs (+ kernel_min_us)
//   l2            l2.csv sweep, working set <= half the L2: every byte an L2 hit, on all SMs
//   l2_beyond     l2.csv sweep, larger working sets: the engine's L2 model (resident while it
//                 fits in L2, else DRAM) - a check, not fitted
//   launch_eager  launch.csv eager host_us_per_item: host.launch_eager_us
//   launch_graph  launch.csv graph/empty gpu_us_per_item: host.launch_graph_us (per node)
//   launch_event  launch.csv event_record and stream_wait_event host time: host.event_us
//   kernel_min    launch.csv eager (queued) gpu_us_per_item: the memory-kernel model of the
//                 empty and small kernels (kernels.memory.kernel_min_us)
#include <string>
#include <vector>

#include "calibrate/fit/bench_csv.hpp"
#include "calibrate/fit/measurements.hpp"

namespace ovs {

// The L2 size the data was measured with: the CSV header's, else the profile's.
double bench_l2_bytes(const BenchData& d, const HwProfile& hw);
// The SM count the data was measured with: the CSV header's, else the profile's.
int bench_sm_count(const BenchData& d, const HwProfile& hw);

std::vector<Measurement> gemm_measurements(const BenchData& d);
std::vector<Measurement> hbm_measurements(const BenchData& d);
std::vector<Measurement> l2_measurements(const BenchData& d, const HwProfile& hw);
std::vector<Measurement> launch_measurements(const BenchData& d);

// The kernels the launch microbenchmark runs ("empty": <<<1, 32>>>, no body; "small":
// <<<256, 256>>> over 65536 floats) priced by the memory-kernel model.
KernelCost launch_kernel_cost(const HwProfile& hw, const std::string& kernel);

}  // namespace ovs
