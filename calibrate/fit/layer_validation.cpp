#include "calibrate/fit/layer_validation.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <map>

#include "app/program/program_loader.hpp"
#include "sim/core/error.hpp"
#include "sim/engine/engine.hpp"
#include "sim/engine/timeline.hpp"
#include "sim/io/bench_plan.hpp"
#include "sim/io/csv_reader.hpp"

namespace ovs {

namespace fs = std::filesystem;

namespace {

struct MeasuredKernel {
  int kernel = -1;
  double alone_us = 0, in_run_us = 0;
};

struct MeasuredPlan {
  std::vector<MeasuredKernel> kernels;
  double window_us = 0;
};

// layer.csv: rows by plan file name, in file order (`order`); kernel -1 is the window.
std::map<std::string, MeasuredPlan> read_layer_csv(const std::string& path,
                                                   std::vector<std::string>& order) {
  const CsvTable t = CsvTable::load(path);
  std::map<std::string, MeasuredPlan> out;
  for (size_t row = 0; row < t.rows(); ++row) {
    const std::string& plan = t.at(row, "plan");
    if (!out.count(plan)) order.push_back(plan);
    MeasuredPlan& mp = out[plan];
    const double kernel = t.number(row, "kernel");
    if (kernel < 0) {
      mp.window_us = t.number(row, "measured_in_run_us");
      continue;
    }
    mp.kernels.push_back({static_cast<int>(kernel), t.number(row, "measured_alone_us"),
                          t.number(row, "measured_in_run_us")});
  }
  return out;
}

}  // namespace

bool has_layer_runs(const std::string& dir) {
  std::error_code ec;
  return fs::exists(fs::path(dir) / "layer.csv", ec);
}

LayerValidation validate_layer_runs(const std::string& dir) {
  LayerValidation v;
  v.dir = dir;
  const std::string csv = (fs::path(dir) / "layer.csv").string();
  std::vector<std::string> order;
  const auto measured = read_layer_csv(csv, order);
  for (const std::string& name : order) {
    const fs::path plan_path = fs::path(dir) / name;
    const fs::path yaml_path = fs::path(dir) / (plan_path.stem().string() + ".yaml");
    bench_plan::Plan plan;
    try {
      plan = bench_plan::load(plan_path.string());
    } catch (const bench_plan::PlanError& e) {
      throw InputError(plan_path.string(), 0, "plan", e.what());
    }
    const LoadedProgram lp = load_program(yaml_path.string());
    const MeasuredPlan& mp = measured.at(name);
    if (lp.program.kernels.size() != plan.kernels.size() ||
        mp.kernels.size() != plan.kernels.size())
      throw InputError(
          csv, 0, "kernel",
          fmt::format("{}: {} kernels measured, {} in the plan, {} in {}", name, mp.kernels.size(),
                      plan.kernels.size(), lp.program.kernels.size(), yaml_path.string()));
    const Engine engine(lp.hw.engine);
    Timeline tl(lp.program, false, false);
    LayerPlanCheck c;
    c.plan = name;
    c.strategy = plan.strategy;
    c.point = plan.point;
    c.hardware = lp.hw.name;
    c.first_layer = plan.first_layer;
    c.layers = plan.layers;
    c.predicted_window_us = engine.run(lp.program, &tl).makespan_us;
    c.measured_window_us = mp.window_us;
    c.kernels = static_cast<int>(plan.kernels.size());
    double sum_alone = 0, sum_run = 0;
    for (const MeasuredKernel& k : mp.kernels) {
      const size_t i = static_cast<size_t>(k.kernel);
      if (i >= plan.kernels.size() || plan.kernels[i].kind == bench_plan::Kind::standin) continue;
      if (k.alone_us <= 0 || k.in_run_us <= 0) continue;
      sum_alone += std::abs(engine.solo_time_us(lp.program.kernels[i]) / k.alone_us - 1);
      sum_run += std::abs(tl.kernels()[i].duration_us() / k.in_run_us - 1);
      ++c.compared;
    }
    if (c.compared > 0) {
      c.mape_alone = 100 * sum_alone / c.compared;
      c.mape_in_run = 100 * sum_run / c.compared;
    }
    if (c.measured_window_us <= 0)
      throw InputError(csv, 0, "measured_in_run_us", name + ": no window row");
    v.plans.push_back(c);
  }
  // Each strategy against the no-overlap baseline exported from the same point.
  for (const LayerPlanCheck& serial : v.plans) {
    if (serial.strategy != "no-overlap") continue;
    for (const LayerPlanCheck& c : v.plans) {
      if (&c == &serial || c.point != serial.point || c.strategy == serial.strategy) continue;
      LayerRatioCheck r;
      r.point = c.point;
      r.strategy = c.strategy;
      r.baseline = serial.strategy;
      r.measured = c.measured_window_us / serial.measured_window_us;
      r.predicted = c.predicted_window_us / serial.predicted_window_us;
      v.ratios.push_back(r);
    }
  }
  return v;
}

void write_layer_validation(std::ostream& out, const LayerValidation& v) {
  out << fmt::format(
      "Layer benchmark runs in {} (communication kernels are stand-ins that hold "
      "DeepEP's SMs for the model's time; the network is not measured)\n",
      v.dir);
  out << fmt::format("{:<40} {:>6} {:>11} {:>11} {:>8} {:>10} {:>10}\n", "plan", "layers",
                     "measured", "predicted", "error", "MAPE alone", "MAPE run");
  for (const LayerPlanCheck& c : v.plans)
    out << fmt::format("{:<40} {:>6} {:>8.1f} us {:>8.1f} us {:>+7.1f}% {:>9.1f}% {:>9.1f}%\n",
                       c.plan, fmt::format("{}..{}", c.first_layer, c.first_layer + c.layers - 1),
                       c.measured_window_us, c.predicted_window_us, 100 * c.window_error(),
                       c.mape_alone, c.mape_in_run);
  if (v.ratios.empty()) return;
  out << "\nOverlapped over serial (the strategy's window / the no-overlap window of the same "
         "point)\n";
  for (const LayerRatioCheck& r : v.ratios)
    out << fmt::format("  {:<18} measured {:.3f}, predicted {:.3f} ({:+.1f}%)   {}\n", r.strategy,
                       r.measured, r.predicted, 100 * r.error(), r.point);
}

nlohmann::ordered_json layer_validation_json(const LayerValidation& v) {
  nlohmann::ordered_json j;
  j["dir"] = v.dir;
  j["plans"] = nlohmann::ordered_json::array();
  for (const LayerPlanCheck& c : v.plans)
    j["plans"].push_back({{"plan", c.plan},
                          {"strategy", c.strategy},
                          {"point", c.point},
                          {"hardware", c.hardware},
                          {"first_layer", c.first_layer},
                          {"layers", c.layers},
                          {"measured_window_us", c.measured_window_us},
                          {"predicted_window_us", c.predicted_window_us},
                          {"window_error", c.window_error()},
                          {"kernels", c.kernels},
                          {"kernels_compared", c.compared},
                          {"mape_alone_pct", c.mape_alone},
                          {"mape_in_run_pct", c.mape_in_run}});
  j["ratios"] = nlohmann::ordered_json::array();
  for (const LayerRatioCheck& r : v.ratios)
    j["ratios"].push_back({{"strategy", r.strategy},
                           {"baseline", r.baseline},
                           {"point", r.point},
                           {"measured", r.measured},
                           {"predicted", r.predicted},
                           {"error", r.error()}});
  return j;
}

}  // namespace ovs
