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

// The dotted paths a sweep may override in a document: every single value, a {value, source}
// field counting as one.
std::vector<std::string> overridable_paths(const yaml::Value& root);
// Throws NameError unless `path` is one of them, with the nearest suggested.
void check_override_path(const yaml::Value& root, const std::string& path);

}  // namespace ovs
