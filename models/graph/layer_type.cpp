#include "models/graph/layer_type.hpp"

namespace ovs {

const std::vector<std::string>& layer_type_names() {
  static const std::vector<std::string> names{"dense", "moe", "swa", "csa", "hca"};
  return names;
}

std::string to_string(LayerType t) {
  return layer_type_names().at(static_cast<size_t>(t));
}

std::optional<LayerType> parse_layer_type(std::string_view name) {
  const auto& names = layer_type_names();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<LayerType>(i);
  return std::nullopt;
}

}  // namespace ovs
