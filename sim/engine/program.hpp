#pragma once
// A host program: what the CPU does, in order. The engine's single input besides hardware.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "sim/core/work.hpp"

namespace ovs {

struct StreamSpec {
  std::string name;
  int priority = 0;  // higher gets free SMs first among kernels waiting for them
};

struct KernelSpec {
  std::string name;
  int stream = 0;
  Work work;
  // Given (measured) duration: the kernel takes this long on `sms` SMs, whatever its Work.
  std::optional<double> duration_us;
  int sms = 0;         // SMs a given-duration kernel occupies (0: takes no part in SM sharing)
  int sm_cap = 0;      // compute kernels: at most this many SMs (0 = no cap)
  int fixed_sms = -1;  // >= 0: holds exactly this many SMs (communication kernels; 0 = none)
  // >= 0: once running, the kernel holds its SMs and makes no progress until the latest record of
  // this event (as of its launch) fires - a receive kernel polling for data still in flight.
  int spin_on_event = -1;
  // A hint, not content: kernels of one program with the same work_class >= 0 have the same work
  // (tensor names, bytes and their order included; only the tensors' scopes may differ),
  // duration_us, sms, sm_cap and fixed_sms, so the engine makes their model once. The program
  // builder sets it (one class per layer-plan cost and SM cap); -1: none. The engine ignores it
  // with the caches off (--no-cache), which must give the same results.
  int work_class = -1;
  // Data in flight between a send and a receive kernel (low-latency DeepEP): a program item that
  // holds no SM and no launch, not a kernel a GPU trace shows.
  bool data_in_flight() const { return fixed_sms == 0 && work.ctas == 0 && !duration_us; }
  // Labels for reports and analysis; the engine does not read them.
  std::string op;
  int micro_batch = -1;
  std::string category;
};

enum class LaunchMode { eager, graph };

struct LaunchAction {
  int kernel = 0;
  std::optional<double> host_us;  // overrides the profile's launch cost for this launch
};
struct RecordAction {
  int event = 0;
  int stream = 0;
};
struct WaitAction {  // the stream waits for the event's latest record
  int event = 0;
  int stream = 0;
};
struct BlockAction {  // the host waits for the event's latest record
  int event = 0;
};
struct DelayAction {  // host time spent outside the GPU API (framework overhead)
  double us = 0;
  std::string label;
};

using HostStep = std::variant<LaunchAction, RecordAction, WaitAction, BlockAction, DelayAction>;

struct HostAction {
  HostStep step;
  std::string label;  // op / micro-batch label for the host track
};

// Names a program's shape for the engine, which keeps what it sets up from the shape alone
// (structure checks, tensor names interned, work classes) for the next run of the same shape on
// its thread. Two programs with the same nonzero token differ at most in their kernels' Work
// numbers (bytes, FLOPs, CTAs, not the tensors' names or scopes) and sm_cap. The program builder
// gives a program built afresh a new token and keeps it when it only takes new numbers into the
// same storage. A copy gets 0 (none): a copy may then be changed in any way.
class ShapeToken {
 public:
  ShapeToken() = default;
  ShapeToken(const ShapeToken&) {}
  ShapeToken& operator=(const ShapeToken&) {
    v_ = 0;
    return *this;
  }
  ShapeToken(ShapeToken&& o) noexcept : v_(o.v_) { o.v_ = 0; }
  ShapeToken& operator=(ShapeToken&& o) noexcept {
    v_ = o.v_;
    o.v_ = 0;
    return *this;
  }
  static ShapeToken fresh();  // nonzero, unique in the process
  std::uint64_t value() const { return v_; }

 private:
  std::uint64_t v_ = 0;
};

struct Program {
  std::vector<StreamSpec> streams;
  std::vector<std::string> events;
  std::vector<KernelSpec> kernels;
  std::vector<HostAction> actions;
  LaunchMode launch_mode = LaunchMode::eager;
  ShapeToken shape;  // 0 unless the program builder set it (see ShapeToken)
};

// The same program with every kernel on one stream, in program order: event waits become
// no-ops (same-stream order already holds) and records move to that stream.
Program serialized(const Program& p);

// Structural checks of a program built in code (indices in range, every wait preceded by a
// record of its event). Returns the first problem, or an empty string.
std::string check_program(const Program& p);

}  // namespace ovs
