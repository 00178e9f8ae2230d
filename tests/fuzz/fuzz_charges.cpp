// fuzz_charges.cpp - libFuzzer: the charge JSONL reader (read_charges_jsonl)
// through a file, as `mfprio-acct charge --file` reads it.
#include <cstdint>
#include <string>

#include "admin.hpp"
#include "fuzz_file.hpp"
#include "import_export.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = mfprio::fuzz::write_input_file("charges", data, size);
  try {
    (void)mfprio::acct::read_charges_jsonl(path);
  } catch (const std::exception&) {  // AdminError / UsageError naming the line
  }
  return 0;
}
