#pragma once
// A what-if as one JSON object (whatif --json; import-trace --whatif nests two of them).
#include <nlohmann/json.hpp>

#include "app/analysis/whatif.hpp"

namespace ovs {

nlohmann::ordered_json whatif_json(const WhatIfResult& r);

}  // namespace ovs
