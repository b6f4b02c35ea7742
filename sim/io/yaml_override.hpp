#pragma once
// Setting a number in a loaded YAML document by its dotted path ("links.rdma.gbps",
// "moe.topk"), before the document is parsed: how a sweep varies any hardware or model field.
// A field written as {value: x, source: "..."} has its value replaced and its source marked.
#include <string>
#include <utility>
#include <vector>

#include "sim/io/yaml_reader.hpp"

namespace ovs {

using Overrides = std::vector<std::pair<std::string, std::string>>;  // (dotted path, value)

// Throws NameError naming the path when it does not lead to an existing scalar field.
void apply_overrides(const yaml::Value& root, const Overrides& overrides);

}  // namespace ovs
