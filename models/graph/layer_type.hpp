#pragma once
// The kinds of layer a model has: V3's dense and MoE layers, V4's sliding-window-only (swa),
// compressed sparse (csa, compress ratio 4) and heavily compressed (hca, ratio 128) layers. A
// strategy lists its operations per layer type under these names.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ovs {

enum class LayerType { dense, moe, swa, csa, hca };

// The name strategies and reports use ("dense", "moe", "swa", "csa", "hca").
std::string to_string(LayerType t);
std::optional<LayerType> parse_layer_type(std::string_view name);
// Every layer type's name, in declaration order (for "did you mean" and error messages).
const std::vector<std::string>& layer_type_names();

}  // namespace ovs
