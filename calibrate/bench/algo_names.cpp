#include "algo_names.hpp"

#include "algo_names.inc"

namespace {

template <size_t N>
std::string find_name(const IdName (&table)[N], unsigned id) {
  for (const IdName& entry : table) {
    if (entry.id == id) return entry.name;
  }
  return "id" + std::to_string(id);
}

}  // namespace

std::string tile_name(uint32_t tile_id) {
  return find_name(kTileNames, tile_id);
}

std::string cluster_shape_name(uint16_t cluster_shape_id) {
  return find_name(kClusterShapeNames, cluster_shape_id);
}
