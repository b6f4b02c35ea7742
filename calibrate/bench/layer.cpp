// layer family: runs the bench plans `overlapsim whatif --export-layers` writes (a few layers of
// DeepSeek's forward as the host launches them, sim/io/bench_plan.hpp) with real kernels of the
// same work on this GPU, and records the window's time and every kernel's duration, alone and in
// the run. What runs for each kernel kind:
//   gemm       cuBLASLt, m x k activations by n x k weights, a strided batch of `groups` (the
//              grouped expert GEMMs: one batch entry per expert, `m` rows each); FP4 runs as FP8
//   attention  a stand-in of the same tensor FLOPs and bytes: a BF16 cuBLASLt GEMM with a square
//              m x n output and both operands together the attention's bytes (m = n = 2 FLOPs /
//              bytes, k = bytes / 4m; at least 16 each, so a very memory-bound attention does a
//              few more FLOPs); its small output is written, which attention keeps on chip
//   memory     a copy kernel over the bytes it both reads and writes, then a read or write of the
//              rest (norms, activations, quantization)
//   standin    communication: spin kernels holding the SMs DeepEP holds for the duration the model
//              gave the kernel (labelled so in the CSV: the network is not measured here)
// Weights are one buffer per layer-qualified weight tensor, so two micro-batches read the same
// weights twice as SGLang does; activations and outputs share per-stream scratch buffers.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_context.hpp"
#include "csv_writer.hpp"
#include "device_buffer.hpp"
#include "gemm_plan.hpp"
#include "l2_flusher.hpp"
#include "memory_kernels.hpp"
#include "sim/io/bench_plan.hpp"
#include "spin_kernels.hpp"
#include "timing.hpp"

namespace {

namespace bp = ovs::bench_plan;

constexpr size_t kWorkspaceBytes = size_t{32} << 20;

const std::vector<std::string> kColumns = {"plan",
                                           "strategy",
                                           "first_layer",
                                           "layers",
                                           "kernel",
                                           "name",
                                           "kind",
                                           "stream",
                                           "runs_as",
                                           "measured_alone_us",
                                           "measured_in_run_us",
                                           "predicted_alone_us",
                                           "predicted_in_run_us",
                                           "reps"};

const std::vector<std::string> kNotes = {
    "one row per kernel of each plan, then a row with kernel -1 and kind 'window': the window's "
    "time (every stream joined) in measured_in_run_us and the engine's in predicted_in_run_us",
    "alone: each kernel by itself after an L2 flush, median of the reps",
    "in run: the plan as the host launches it (a CUDA graph when the plan says graph), CUDA events "
    "around each kernel on its stream; window: events around the whole, median of the reps",
    "runs_as: what ran for the kernel (cuBLASLt shape, memory bytes, spin time and SMs)",
    "standin kernels are not communication: spin kernels for the model's duration",
};

GemmDtype gemm_dtype(const std::string& d) {
  return d == "bf16" ? GemmDtype::kBf16 : GemmDtype::kFp8E4m3;
}

size_t round16(double bytes) {
  return static_cast<size_t>(std::ceil(std::max(bytes, 16.0) / 16.0)) * 16;
}

// One kernel of a plan, ready to launch.
struct Launchable {
  bp::Kind kind = bp::Kind::memory;
  std::unique_ptr<GemmPlan> gemm;
  const void* weights = nullptr;
  size_t copy_bytes = 0, read_bytes = 0, write_bytes = 0;
  Grid grid;
  double spin_us = 0;
  std::string runs_as;
};

class LayerRun {
 public:
  LayerRun(const BenchContext& context, const bp::Plan& plan, cublasLtHandle_t handle,
           const float* unit_scale)
      : context_(context), plan_(plan) {
    for (const bp::Stream& s : plan.streams) {
      int lo = 0, hi = 0;
      CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
      cudaStream_t stream = nullptr;
      // CUDA: a lower number is a higher priority; the plan's higher priority gets SMs first.
      CUDA_CHECK(
          cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, s.priority > 0 ? hi : lo));
      streams_.push_back(stream);
    }
    events_.resize(static_cast<size_t>(plan.events));
    for (cudaEvent_t& e : events_) CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&fork_, cudaEventDisableTiming));
    joins_.resize(streams_.size());
    for (cudaEvent_t& e : joins_) CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    prepare(handle, unit_scale);
  }
  ~LayerRun() {
    if (graph_exec_) cudaGraphExecDestroy(graph_exec_);
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
    for (cudaEvent_t e : joins_) cudaEventDestroy(e);
    cudaEventDestroy(fork_);
    for (cudaStream_t s : streams_) cudaStreamDestroy(s);
  }

  const Launchable& launchable(int k) const { return kernels_[static_cast<size_t>(k)]; }

  // One kernel on `stream`.
  void launch(int k, cudaStream_t stream) const {
    const Launchable& l = kernels_[static_cast<size_t>(k)];
    switch (l.kind) {
      case bp::Kind::gemm:
      case bp::Kind::attention:
        l.gemm->run({l.weights, activations_.get(), output_for(stream), workspace_for(stream),
                     kWorkspaceBytes},
                    stream);
        break;
      case bp::Kind::memory:
        if (l.copy_bytes > 0)
          launch_copy(output_for(stream), activations_.get(), l.copy_bytes, l.grid, stream);
        if (l.read_bytes > 0) launch_read(activations_.get(), l.read_bytes, l.grid, stream);
        if (l.write_bytes > 0) launch_write(output_for(stream), l.write_bytes, l.grid, stream);
        break;
      case bp::Kind::standin:
        launch_spin(l.spin_us, l.grid, stream);
        break;
    }
  }

  // The plan's host steps from stream 0, every other stream forked from it and joined back;
  // with `kernel_events`, an event pair around each kernel on its stream.
  void issue(EventPairs* kernel_events, bool host_delays) const {
    cudaStream_t origin = streams_.front();
    CUDA_CHECK(cudaEventRecord(fork_, origin));
    for (size_t s = 1; s < streams_.size(); ++s)
      CUDA_CHECK(cudaStreamWaitEvent(streams_[s], fork_));
    const unsigned flags = capturing_ ? cudaEventRecordExternal : cudaEventRecordDefault;
    for (const bp::Step& step : plan_.steps) {
      switch (step.op) {
        case bp::Step::Op::launch: {
          cudaStream_t s = streams_[static_cast<size_t>(plan_.kernels[step.a].stream)];
          if (kernel_events)
            CUDA_CHECK(cudaEventRecordWithFlags(kernel_events->start(step.a), s, flags));
          launch(step.a, s);
          if (kernel_events)
            CUDA_CHECK(cudaEventRecordWithFlags(kernel_events->stop(step.a), s, flags));
          break;
        }
        case bp::Step::Op::record:
          CUDA_CHECK(cudaEventRecord(events_[step.a], streams_[step.b]));
          break;
        case bp::Step::Op::wait:
          CUDA_CHECK(cudaStreamWaitEvent(streams_[step.b], events_[step.a]));
          break;
        case bp::Step::Op::block:
          if (!capturing_) CUDA_CHECK(cudaEventSynchronize(events_[step.a]));
          break;
        case bp::Step::Op::delay:
          if (host_delays && !capturing_) {
            const double until = host_now_us() + step.us;
            while (host_now_us() < until) {
            }
          }
          break;
      }
    }
    for (size_t s = 1; s < streams_.size(); ++s) {
      CUDA_CHECK(cudaEventRecord(joins_[s], streams_[s]));
      CUDA_CHECK(cudaStreamWaitEvent(origin, joins_[s]));
    }
  }

  // The whole window once, as the plan launches it (graph replay or eager issue).
  void run_window(EventPairs* kernel_events) {
    if (plan_.launch_mode != "graph") {
      issue(kernel_events, true);
      return;
    }
    cudaGraphExec_t& exec = kernel_events ? graph_exec_events_ : graph_exec_;
    if (!exec) {
      cudaStream_t origin = streams_.front();
      CUDA_CHECK(cudaStreamBeginCapture(origin, cudaStreamCaptureModeThreadLocal));
      capturing_ = true;
      issue(kernel_events, false);
      capturing_ = false;
      cudaGraph_t graph = nullptr;
      CUDA_CHECK(cudaStreamEndCapture(origin, &graph));
      CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
      CUDA_CHECK(cudaGraphDestroy(graph));
    }
    CUDA_CHECK(cudaGraphLaunch(exec, streams_.front()));
  }

  cudaStream_t origin() const { return streams_.front(); }

 private:
  void* output_for(cudaStream_t s) const {
    return outputs_[static_cast<size_t>(std::find(streams_.begin(), streams_.end(), s) -
                                        streams_.begin())]
        .get();
  }
  void* workspace_for(cudaStream_t s) const {
    return workspaces_[static_cast<size_t>(std::find(streams_.begin(), streams_.end(), s) -
                                           streams_.begin())]
        .get();
  }

  void prepare(cublasLtHandle_t handle, const float* unit_scale) {
    const DeviceInfo& device = context_.device;
    std::map<std::string, size_t> weight_bytes;  // per weight tensor, the largest use
    size_t activation_bytes = 16, output_bytes = 16;
    for (const bp::Kernel& k : plan_.kernels) {
      Launchable l;
      l.kind = k.kind;
      char text[256];
      if (k.kind == bp::Kind::gemm || k.kind == bp::Kind::attention) {
        GemmProblem problem;
        problem.dtype = k.kind == bp::Kind::gemm ? gemm_dtype(k.dtype) : GemmDtype::kBf16;
        const double element = static_cast<double>(dtype_bytes(problem.dtype));
        if (k.kind == bp::Kind::gemm) {
          problem.m = k.m;
          problem.n = k.n;
          problem.k = k.k;
          problem.batch = k.groups;
        } else {
          // Square output (m = n) and the bytes in the operands: (m + n) k e = bytes and
          // 2 m n k = FLOPs give m = e FLOPs / bytes, k = bytes / (2 m e). The m x n output is
          // then small next to the operands, as attention's is.
          const double side = element * k.tensor_flops / std::max(k.read_bytes, 1.0);
          problem.m = problem.n = std::max<int64_t>(16, std::llround(side));
          problem.k = std::max<int64_t>(
              16, std::llround(k.read_bytes / (2.0 * static_cast<double>(problem.m) * element)));
        }
        problem.sm_count_target = k.sm_cap > 0 && k.sm_cap < device.sm_count ? k.sm_cap : 0;
        std::string why_not;
        l.gemm = GemmPlan::create(handle, problem, unit_scale, kWorkspaceBytes, why_not);
        if (!l.gemm) {
          problem.sm_count_target = 0;  // an older cuBLASLt without the attribute
          l.gemm = GemmPlan::create(handle, problem, unit_scale, kWorkspaceBytes, why_not);
        }
        if (!l.gemm)
          throw std::runtime_error("kernel " + std::to_string(k.id) + " (" + k.name +
                                   "): cuBLASLt has no algorithm: " + why_not);
        const std::string key =
            k.weight.empty() ? "kernel" + std::to_string(k.id) : k.weight + "/" + k.dtype;
        weight_bytes[key] = std::max(weight_bytes[key], problem.weight_bytes());
        weight_keys_.push_back(key);
        activation_bytes = std::max(activation_bytes, problem.activation_bytes());
        output_bytes = std::max(output_bytes, problem.output_bytes());
        std::snprintf(text, sizeof text, "cublaslt %s m=%lld n=%lld k=%lld batch=%d sms=%d",
                      std::string(dtype_name(problem.dtype)).c_str(),
                      static_cast<long long>(problem.m), static_cast<long long>(problem.n),
                      static_cast<long long>(problem.k), problem.batch, problem.sm_count_target);
      } else if (k.kind == bp::Kind::memory) {
        const double both = std::min(k.read_bytes, k.write_bytes);
        l.copy_bytes = both > 0 ? round16(both) : 0;
        l.read_bytes = k.read_bytes > both ? round16(k.read_bytes - both) : 0;
        l.write_bytes = k.write_bytes > both ? round16(k.write_bytes - both) : 0;
        const int sms = k.sm_cap > 0 ? std::min(k.sm_cap, device.sm_count) : device.sm_count;
        l.grid = sms < device.sm_count ? Grid{sms * 2, 1024, 0} : full_device_grid(device);
        activation_bytes = std::max({activation_bytes, l.copy_bytes, l.read_bytes});
        output_bytes = std::max({output_bytes, l.copy_bytes, l.write_bytes});
        weight_keys_.push_back("");
        std::snprintf(text, sizeof text, "memory copy=%zu read=%zu write=%zu ctas=%d", l.copy_bytes,
                      l.read_bytes, l.write_bytes, l.grid.ctas);
      } else {
        l.spin_us = k.duration_us;
        l.grid = spin_grid(device, k.sms);
        weight_keys_.push_back("");
        std::snprintf(text, sizeof text, "spin %.3f us on %d SMs (stand-in)", k.duration_us, k.sms);
      }
      l.runs_as = text;
      kernels_.push_back(std::move(l));
    }
    cudaStream_t s = streams_.front();
    for (const auto& [key, bytes] : weight_bytes) {
      weights_[key] = DeviceBuffer(round16(static_cast<double>(bytes)));
      fill_random_bf16(weights_[key].get(), weights_[key].bytes() / 2, 7, s);
    }
    for (size_t i = 0; i < kernels_.size(); ++i)
      if (!weight_keys_[i].empty()) kernels_[i].weights = weights_[weight_keys_[i]].get();
    activations_ = DeviceBuffer(round16(static_cast<double>(activation_bytes)));
    fill_random_bf16(activations_.get(), activations_.bytes() / 2, 8, s);
    for (size_t i = 0; i < streams_.size(); ++i) {
      outputs_.emplace_back(round16(static_cast<double>(output_bytes)));
      workspaces_.emplace_back(kWorkspaceBytes);
    }
    CUDA_CHECK(cudaStreamSynchronize(s));
  }

  const BenchContext& context_;
  const bp::Plan& plan_;
  std::vector<cudaStream_t> streams_;
  std::vector<cudaEvent_t> events_;
  cudaEvent_t fork_ = nullptr;
  std::vector<cudaEvent_t> joins_;
  std::vector<Launchable> kernels_;
  std::vector<std::string> weight_keys_;
  std::map<std::string, DeviceBuffer> weights_;
  DeviceBuffer activations_;
  std::vector<DeviceBuffer> outputs_, workspaces_;
  cudaGraphExec_t graph_exec_ = nullptr, graph_exec_events_ = nullptr;
  bool capturing_ = false;
};

std::vector<std::filesystem::path> plan_files(const std::vector<std::string>& paths) {
  std::vector<std::filesystem::path> out;
  for (const std::string& p : paths) {
    if (std::filesystem::is_directory(p)) {
      std::vector<std::filesystem::path> in_dir;
      for (const auto& e : std::filesystem::directory_iterator(p))
        if (e.path().extension() == ".plan") in_dir.push_back(e.path());
      std::sort(in_dir.begin(), in_dir.end());
      out.insert(out.end(), in_dir.begin(), in_dir.end());
    } else {
      out.emplace_back(p);
    }
  }
  return out;
}

std::string fmt_us(double us) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", us);
  return text;
}

// The last rep's kernels as a Chrome / Perfetto trace (one track per stream): the measured
// counterpart of `overlapsim run PLAN.yaml --trace`.
void write_trace(const std::filesystem::path& path, const bp::Plan& plan,
                 const std::vector<double>& start_us,
                 const std::vector<std::vector<double>>& in_run) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error("layer: cannot write " + path.string());
  std::fprintf(f, "{\"traceEvents\":[\n");
  for (size_t s = 0; s < plan.streams.size(); ++s)
    std::fprintf(f,
                 "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":%zu,"
                 "\"args\":{\"name\":\"%s (measured)\"}},\n",
                 s, plan.streams[s].name.c_str());
  for (size_t k = 0; k < plan.kernels.size(); ++k)
    std::fprintf(f,
                 "{\"ph\":\"X\",\"name\":\"%s\",\"cat\":\"%s\",\"pid\":1,\"tid\":%d,"
                 "\"ts\":%.3f,\"dur\":%.3f}%s\n",
                 plan.kernels[k].name.c_str(),
                 std::string(bp::kind_name(plan.kernels[k].kind)).c_str(), plan.kernels[k].stream,
                 start_us[k], in_run[k].back(), k + 1 < plan.kernels.size() ? "," : "");
  std::fprintf(f, "]}\n");
  std::fclose(f);
}

}  // namespace

void run_layer_family(const BenchContext& context) {
  const BenchOptions& options = context.options;
  if (options.plans.empty())
    throw std::runtime_error("layer: --plans names no plan (overlapsim whatif --export-layers)");
  cublasLtHandle_t handle = nullptr;
  CUBLAS_CHECK(cublasLtCreate(&handle));
  DeviceBuffer unit_scale(sizeof(float));
  fill_float(unit_scale.as<float>(), 1, 1.0f, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  const L2Flusher flusher(context.device);
  CsvWriter csv(csv_path(context, "layer"), csv_metadata(context, "layer", kNotes), kColumns);

  for (const std::filesystem::path& file : plan_files(options.plans)) {
    const bp::Plan plan = bp::load(file.string());
    const double start_us = host_now_us();
    LayerRun run(context, plan, handle, unit_scale.as<float>());
    cudaStream_t origin = run.origin();
    const int n = static_cast<int>(plan.kernels.size());
    // The window: warm-up (graph instantiation included), then timed replays.
    const std::vector<double> window = time_reps_us(
        origin, options.warmup, options.reps, [] {}, [&] { run.run_window(nullptr); });
    // Each kernel in the run: one more pass per rep with an event pair around every kernel.
    // One set of events for every rep: a captured graph keeps the events it was captured with.
    std::vector<std::vector<double>> in_run(static_cast<size_t>(n));
    EventPairs events(std::max(n, 1));
    std::vector<double> offset_us(static_cast<size_t>(n));  // the last rep's, from kernel 0's start
    for (int rep = 0; rep < options.reps; ++rep) {
      run.run_window(&events);
      CUDA_CHECK(cudaStreamSynchronize(origin));
      for (int k = 0; k < n; ++k) {
        in_run[static_cast<size_t>(k)].push_back(events.elapsed_us(k));
        offset_us[static_cast<size_t>(k)] = elapsed_us(events.start(0), events.start(k));
      }
    }
    const std::string name = file.filename().string();
    write_trace(context.options.out_dir / (file.stem().string() + ".trace.json"), plan, offset_us,
                in_run);
    for (int k = 0; k < n; ++k) {
      const bp::Kernel& pk = plan.kernels[static_cast<size_t>(k)];
      const std::vector<double> alone = time_reps_us(
          origin, 1, options.reps, [&] { flusher.flush(origin); }, [&] { run.launch(k, origin); });
      csv.write_row({name, plan.strategy, std::to_string(plan.first_layer),
                     std::to_string(plan.layers), std::to_string(k), pk.name,
                     std::string(bp::kind_name(pk.kind)), std::to_string(pk.stream),
                     run.launchable(k).runs_as, fmt_us(median(alone)),
                     fmt_us(median(in_run[static_cast<size_t>(k)])), fmt_us(pk.predicted_alone_us),
                     fmt_us(pk.predicted_in_run_us), std::to_string(options.reps)});
    }
    const auto predicted = plan.predicted.find("window_us");
    csv.write_row({name, plan.strategy, std::to_string(plan.first_layer),
                   std::to_string(plan.layers), "-1", "window", "window", "-1", plan.launch_mode,
                   "", fmt_us(median(window)), "",
                   predicted != plan.predicted.end() ? fmt_us(predicted->second) : "",
                   std::to_string(options.reps)});
    std::fprintf(stderr,
                 "layer: %s: %d kernels, window %.1f us measured, %.1f predicted (%.1f s)\n",
                 name.c_str(), n, median(window),
                 predicted != plan.predicted.end() ? predicted->second : 0.0,
                 (host_now_us() - start_us) * 1e-6);
  }
  csv.finish();
  CUBLAS_CHECK(cublasLtDestroy(handle));
}
