#pragma once
// Where shipped data lives (hw_profiles/, models/configs/, strategies/): $OVERLAPSIM_HOME if
// set, else <prefix>/share/overlapsim next to an installed binary (<prefix>/bin/overlapsim),
// else the source tree this binary was built from.
#include <stdexcept>
#include <string>
#include <vector>

namespace ovs {

std::string data_root();

// Resolves NAME_OR_PATH: an existing file path is used as is; otherwise <root>/<folder>/<name>.yaml
// (searching sub-folders of <folder> too), matched exactly, then by its words in any case
// ("H800" -> h800-sxm, "v3" -> deepseek-v3), then by a file's `aliases:`. Throws NameError (no
// location: the caller adds the file, line or flag) naming `what` and listing the shipped names
// (with "did you mean") when nothing matches, or the matches when several do.
std::string resolve_data_file(const std::string& name_or_path, const std::string& folder,
                              const std::string& what);

class NameError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Names (file stems) of the YAML files under <root>/<folder>, sorted.
std::vector<std::string> shipped_names(const std::string& folder);

}  // namespace ovs
