// acct_main.cpp - the mfprio-acct executable: forwards argv to run_cli.
#include <iostream>
#include <string>
#include <vector>

#include "acct_cli.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return mfprio::acct::run_cli(args, std::cout, std::cerr);
}
