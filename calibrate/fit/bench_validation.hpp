#pragma once
// Predicted against measured for a folder of microbenchmark CSVs (`overlapsim validate DIR`):
// the rows calibrate --bench fits, per family, with the checks of bench_checks.hpp; and the
// printing of calibrate --bench's fit report.
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "calibrate/fit/bench_checks.hpp"
#include "calibrate/fit/bench_fit.hpp"

namespace ovs {

struct BenchValidation {
  std::string dir, gpu, date, hardware;
  std::vector<std::pair<std::string, ResidualSummary>> families;  // in bench_rows.hpp's tags
  BenchChecks checks;
};

BenchValidation validate_bench(const HwProfile& hw, const BenchData& d);
void print_bench_validation(std::ostream& out, const BenchValidation& v);
nlohmann::ordered_json bench_validation_json(const BenchValidation& v);

}  // namespace ovs
