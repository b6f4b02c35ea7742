#pragma once
// overlapsim describe strategy NAME [--model M] [--json]: a strategy in words (see
// app/strategy/strategy_words.hpp). A name shipped for both model families (sbo, tbo-decode,
// no-overlap...) describes both, unless --model names the family.
#include <ostream>
#include <string>

namespace ovs {

// Throws InputError naming the flag (`name` or `--model`) when nothing matches.
int describe_strategy(const std::string& name, const std::string& model, bool json,
                      std::ostream& out);

}  // namespace ovs
