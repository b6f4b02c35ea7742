#pragma once
// A strategy as `overlapsim describe strategy` shows it: its ops and Yield points per layer
// type, where its kernels run (streams, events, SM caps), its SM split and DeepEP mode, and what
// SGLang makes of it (status, phases, flags, environment, limits, sources) - in words and as
// JSON, so a user need not read the YAML.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/strategy/strategy.hpp"

namespace ovs {

// The comment lines at the top of a strategy file, without their '#': what the plan does, in
// its author's words (empty when the file starts with a key).
std::vector<std::string> header_comment(const std::string& path);

nlohmann::ordered_json strategy_json(const Strategy& s, const std::vector<std::string>& about);
std::string strategy_text(const Strategy& s, const std::vector<std::string>& about);

}  // namespace ovs
