#include <iostream>

#include "app/cli/cli.hpp"

int main(int argc, char** argv) {
  return ovs::run_cli(argc, argv, std::cout, std::cerr);
}
