#pragma once
// A command run through the CLI with --json, required to succeed, and its output parsed.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "helpers.hpp"

namespace ovs::test {

// `overlapsim <command> <args...> --json`; the test stops (showing stderr) unless it exits 0.
inline nlohmann::json cli_json(const std::string& command, std::vector<std::string> args) {
  args.insert(args.begin(), command);
  args.push_back("--json");
  const CliResult r = cli(args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  return nlohmann::json::parse(r.out);
}

inline nlohmann::json whatif_json(std::vector<std::string> args) {
  return cli_json("whatif", std::move(args));
}

}  // namespace ovs::test
