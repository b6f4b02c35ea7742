#pragma once
// Other names of a shipped file: a hardware profile lists them under `aliases:` (the GPU's names
// in published data and in common use, e.g. gb200.yaml: GB200, gb200-nvl72), and each of them
// resolves to that file as its stem does.
#include <filesystem>
#include <string>
#include <vector>

namespace ovs {

// The files among `files` whose top-level `aliases:` list holds `name` exactly. A file that does
// not parse or has no such list names nothing (its own loader reports its errors).
std::vector<std::filesystem::path> files_with_alias(const std::vector<std::filesystem::path>& files,
                                                    const std::string& name);

// Every alias of the files, sorted and unique (for "did you mean").
std::vector<std::string> aliases_of(const std::vector<std::filesystem::path>& files);

}  // namespace ovs
