#include "models/hw/profile_sources.hpp"

namespace ovs {

std::vector<SourcedField> fields_under(const HwProfile& hw,
                                       const std::vector<std::string>& prefixes) {
  std::vector<SourcedField> out;
  for (const auto& f : hw.fields) {
    bool keep = prefixes.empty();
    for (const auto& p : prefixes)
      if (f.path == p || (f.path.size() > p.size() && f.path.compare(0, p.size(), p) == 0 &&
                          f.path[p.size()] == '.'))
        keep = true;
    if (keep) out.push_back(f);
  }
  return out;
}

bool is_estimate(const std::string& source) {
  for (const char* word : {"guess", "estimate", "assumed"})
    if (source.find(word) != std::string::npos) return true;
  return false;
}

}  // namespace ovs
