#pragma once
// cuBLASLt tile and cluster-shape ids as text ("128x256", "2x1x1"); "id<N>" when this toolkit's
// header does not name the id.

#include <cstdint>
#include <string>

std::string tile_name(uint32_t tile_id);
std::string cluster_shape_name(uint16_t cluster_shape_id);
