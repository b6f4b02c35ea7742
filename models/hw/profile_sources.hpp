#pragma once
// Where a profile's numbers come from, for the reports that use them (validate): the sourced
// fields under given paths, and which of them are labelled as estimates rather than measured or
// published.
#include <string>
#include <vector>

#include "models/hw/hw_profile.hpp"

namespace ovs {

// The profile's fields whose path is one of `prefixes` or starts with one followed by '.', in
// file order. An empty prefix list selects every field.
std::vector<SourcedField> fields_under(const HwProfile& hw,
                                       const std::vector<std::string>& prefixes);

// True when a source labels its number an estimate: "guess", "estimate", "assumed" or "initial
// estimate" (copied numbers keep their donor's label: "as for h800-sxm (...): estimate: ...").
bool is_estimate(const std::string& source);

}  // namespace ovs
