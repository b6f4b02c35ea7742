#pragma once
// A loaded program as canonical text: every field of every stream, kernel and host action, with
// numbers in hexadecimal floating point (exact). Two readers of a program agree when their texts
// are equal (the fast reader and yaml-cpp: tests and the program fuzzer compare them).
#include <string>

#include "app/program/program_loader.hpp"

namespace ovs {

std::string program_text(const LoadedProgram& p);

}  // namespace ovs
