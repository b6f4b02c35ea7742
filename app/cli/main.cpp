#include <iostream>

#include "app/cli/cli.hpp"
#include "app/cli/process_heap.hpp"

int main(int argc, char** argv) {
  ovs::prepare_process_heap();
  return ovs::run_cli(argc, argv, std::cout, std::cerr);
}
