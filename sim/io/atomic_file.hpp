#pragma once
// An output file that appears whole or not at all: written to a temporary file beside the
// target and renamed over it on commit(). Dropped without commit, the temporary is removed, so
// a failed run never leaves a partial output behind. Errors (unwritable directory, full disk)
// are InputErrors naming the file.
#include <fstream>
#include <string>

namespace ovs {

class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::ostream& stream() { return out_; }
  void commit();

 private:
  std::string path_;
  std::string tmp_;
  std::ofstream out_;
  bool committed_ = false;
};

}  // namespace ovs
