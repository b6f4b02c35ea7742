#include "calibrate/fit/band_coverage.hpp"

#include <fmt/format.h>

#include "app/analysis/uncertainty.hpp"

namespace ovs {

CoverageReport band_coverage(const std::string& hw, const MeasurementSet& set, int draws,
                             std::uint64_t seed) {
  const std::vector<HwProfile> profiles = draw_profiles(hw, draws, seed);
  CoverageReport r;
  r.draws = draws;
  for (const Measurement& m : set.rows) {
    std::vector<double> predicted;
    for (const HwProfile& p : profiles) predicted.push_back(m.predict_us(p));
    const Band b = band_of(predicted);
    for (Coverage* c :
         {&r.all, &r.by_family[m.family], &(m.in_sample ? r.in_sample : r.held_back)[m.family]}) {
      ++c->rows;
      if (m.measured_us < b.p10)
        ++c->below;
      else if (m.measured_us > b.p90)
        ++c->above;
      else
        ++c->inside;
      c->width_sum += b.p50 > 0 ? (b.p90 - b.p10) / b.p50 : 0;
    }
  }
  return r;
}

void write_coverage(std::ostream& out, const CoverageReport& r) {
  out << fmt::format(
      "\nP10-P90 bands over {} draws of the profile's uncertain numbers: measured inside (80 % "
      "would be honest), below P10, above P90, mean band width over P50\n",
      r.draws);
  auto line = [&](const std::string& name, const Coverage& c) {
    out << fmt::format(
        "  {:<34} {:>4} rows  inside {:>5.1f} %  below {:>3}  above {:>3}  "
        "width {:>5.1f} %\n",
        name, c.rows, c.share() * 100, c.below, c.above, c.mean_width() * 100);
  };
  for (const auto& [family, c] : r.in_sample) line(family + " (in-sample)", c);
  for (const auto& [family, c] : r.held_back) line(family + " (held back)", c);
  line("all rows", r.all);
}

}  // namespace ovs
