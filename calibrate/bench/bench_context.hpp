#pragma once
// What every family gets: the options, the device, and the CSV metadata both imply.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "device_info.hpp"
#include "options.hpp"

struct BenchContext {
  BenchOptions options;
  DeviceInfo device;
};

// The '#' metadata lines that open every CSV (without the '# '): "key: value" each, then the
// family's own notes (how it measures), one per line.
std::vector<std::string> csv_metadata(const BenchContext& context, std::string_view family,
                                      const std::vector<std::string>& notes);

// DIR/<family>.csv
std::filesystem::path csv_path(const BenchContext& context, std::string_view family);

// The families; each writes its CSV and returns normally, or exits 1 on a CUDA error.
void run_gemm_family(const BenchContext& context);
void run_hbm_family(const BenchContext& context);
void run_l2_family(const BenchContext& context);
void run_launch_family(const BenchContext& context);
void run_concurrency_family(const BenchContext& context);
void run_layer_family(const BenchContext& context);  // the plans in --plans
