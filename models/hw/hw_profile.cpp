#include "models/hw/hw_profile.hpp"

#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/io/data_paths.hpp"

namespace ovs {
namespace {

// Reads a number given either bare or as {value: x, source: "..."}.
class SourcedReader {
 public:
  explicit SourcedReader(HwProfile& p) : p_(p) {}

  double read(const yaml::Map& m, const std::string& key, yaml::NumberRange r) {
    return read_value(m.required(key), r);
  }
  double read_opt(const yaml::Map& m, const std::string& key, yaml::NumberRange r, double dflt,
                  bool* present = nullptr) {
    auto v = m.optional(key);
    if (present) *present = v.has_value();
    return v ? read_value(*v, r) : dflt;
  }
  double read_value(const yaml::Value& v, yaml::NumberRange r) {
    SourcedField f;
    f.path = v.path();
    f.line = v.line();
    if (v.is_map()) {
      yaml::Map m(v, {"value", "source", "note"});
      f.value = m.required("value").number(r);
      f.source = m.required("source").str();
    } else {
      f.value = v.number(r);
    }
    p_.fields.push_back(f);
    return f.value;
  }

 private:
  HwProfile& p_;
};

}  // namespace

HwProfile parse_hw_profile(const yaml::Value& root) {
  HwProfile p;
  p.file = root.file();
  SourcedReader num(p);
  yaml::Map m(root, {"name", "description", "vendor", "arch", "sm_count", "boost_clock_mhz",
                     "sustained_clock_mhz", "tensor_peak_tflops", "cuda_core_peak_tflops", "hbm",
                     "l2", "links", "host"});
  p.name = m.required("name").str();
  if (auto d = m.optional("description")) p.description = d->str();
  p.vendor = m.required("vendor").choice({"nvidia", "amd"});
  p.arch = m.required("arch").choice({"hopper", "blackwell", "cdna3", "cdna4", "generic"});

  Hardware& hw = p.engine;
  hw.name = p.name;
  hw.sm_count = static_cast<int>(num.read(m, "sm_count", {1, 4096}));
  if (double(hw.sm_count) != p.fields.back().value)
    m.required("sm_count").fail("must be a whole number of SMs");
  p.boost_clock_mhz = num.read(m, "boost_clock_mhz", yaml::kPositive);
  p.sustained_clock_mhz = num.read_opt(m, "sustained_clock_mhz", yaml::kPositive, p.boost_clock_mhz);
  if (p.sustained_clock_mhz > p.boost_clock_mhz)
    m.required("sustained_clock_mhz").fail("must not exceed boost_clock_mhz");
  const double clock_ratio = p.sustained_clock_mhz / p.boost_clock_mhz;

  {
    auto v = m.required("tensor_peak_tflops");
    yaml::Map t(v, {"bf16", "fp8", "fp4"});
    for (int d = 0; d < kNumDtypes; ++d) {
      const std::string key(kDtypeNames[d]);
      p.tensor_peak_tflops[d] = num.read(t, key, yaml::kNonNegative);
      hw.tensor_flops_per_us_per_sm[d] =
          units::tflops_to_flops_per_us(p.tensor_peak_tflops[d]) * clock_ratio / hw.sm_count;
    }
    if (p.tensor_peak_tflops[0] <= 0) t.required("bf16").fail("must be > 0");
  }
  hw.cuda_core_flops_per_us_per_sm = units::tflops_to_flops_per_us(num.read(
                                         m, "cuda_core_peak_tflops", yaml::kPositive)) *
                                     clock_ratio / hw.sm_count;
  {
    yaml::Map h(m.required("hbm"), {"peak_gbps", "achievable_gbps", "saturation_sms", "capacity_gb"});
    p.hbm_peak_gbps = num.read(h, "peak_gbps", yaml::kPositive);
    const double ach = num.read(h, "achievable_gbps", yaml::kPositive);
    if (ach > p.hbm_peak_gbps) h.required("achievable_gbps").fail("must not exceed peak_gbps");
    hw.hbm_bytes_per_us = units::gbps_to_bytes_per_us(ach);
    hw.hbm_saturation_sms = static_cast<int>(num.read(h, "saturation_sms", {1, double(hw.sm_count)}));
    p.hbm_capacity_gb = num.read_opt(h, "capacity_gb", yaml::kPositive, 0);
  }
  {
    yaml::Map l(m.required("l2"), {"size_mib", "achievable_gbps", "saturation_sms"});
    hw.l2_size_bytes = num.read(l, "size_mib", yaml::kPositive) * units::kBytesPerMiB;
    hw.l2_bytes_per_us = units::gbps_to_bytes_per_us(num.read(l, "achievable_gbps", yaml::kPositive));
    hw.l2_saturation_sms = static_cast<int>(num.read(l, "saturation_sms", {1, double(hw.sm_count)}));
  }
  if (auto lv = m.optional("links")) {
    yaml::Map links(*lv, {"nvlink", "rdma"});
    for (int i = 0; i < kNumLinks; ++i) {
      auto one = links.optional(std::string(kLinkNames[i]));
      if (!one) continue;
      yaml::Map lm(*one, {"gbps", "latency_us"});
      hw.links[i].bytes_per_us = units::gbps_to_bytes_per_us(num.read(lm, "gbps", yaml::kNonNegative));
      hw.links[i].latency_us = num.read(lm, "latency_us", yaml::kNonNegative);
    }
  }
  {
    yaml::Map h(m.required("host"), {"launch_eager_us", "launch_graph_us", "event_us"});
    hw.launch_eager_us = num.read(h, "launch_eager_us", yaml::kNonNegative);
    hw.launch_graph_us = num.read(h, "launch_graph_us", yaml::kNonNegative);
    hw.event_host_us = num.read_opt(h, "event_us", yaml::kNonNegative, 0);
  }
  return p;
}

HwProfile load_hw_profile(const std::string& name_or_path) {
  std::string path;
  try {
    path = resolve_data_file(name_or_path, "hw_profiles", "hardware profile");
  } catch (const NameError& e) {
    throw InputError("", 0, "hardware", e.what());
  }
  return parse_hw_profile(yaml::load_file(path));
}

}  // namespace ovs
