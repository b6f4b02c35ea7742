#pragma once
// SGLang's launch flags for a plan point: what to pass to `python -m sglang.launch_server` so that
// SGLang runs the configuration the plan simulated. Only flags SGLang has; where this tool is not
// sure how SGLang reads one (per GPU or per instance, a version difference), a note says so.
#include <string>
#include <vector>

#include "app/plan/plan.hpp"
#include "app/strategy/strategy.hpp"
#include "models/config/model_config.hpp"
#include "models/hw/hw_profile.hpp"

namespace ovs {

SglangLaunch sglang_launch(const PlanPoint& p, const Strategy& s, const ModelConfig& m,
                           const HwProfile& hw, const PlanRequest& r);

}  // namespace ovs
