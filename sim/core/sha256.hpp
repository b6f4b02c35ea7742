#pragma once
// SHA-256 (FIPS 180-4) of bytes, as 64 lowercase hex digits: the content hashes a sweep's
// results file records for its spec and every model, hardware and strategy file it used.
#include <cstdint>
#include <string>
#include <string_view>

namespace ovs {

class Sha256 {
 public:
  Sha256();
  void update(std::string_view bytes);
  std::string hex();  // finishes the hash; call once

 private:
  void block(const unsigned char* p);
  std::uint32_t h_[8];
  unsigned char buf_[64];
  std::uint64_t length_bytes_ = 0;
  size_t used_ = 0;
};

std::string sha256_hex(std::string_view bytes);
// Of a file's bytes; InputError naming the file if it cannot be read.
std::string sha256_file(const std::string& path);

}  // namespace ovs
