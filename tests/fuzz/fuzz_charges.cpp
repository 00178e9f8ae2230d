// fuzz_charges.cpp - libFuzzer: the charge JSONL reader (read_charges_jsonl)
// through a file, as `mfprio-acct charge --file` reads it.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "admin.hpp"
#include "import_export.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::string path;
  if (path.empty()) {
    char tmpl[] = "/tmp/mfprio-fuzz-charges-XXXXXX";
    const int fd = mkstemp(tmpl);
    if (fd < 0) abort();
    close(fd);
    path = tmpl;
  }
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) abort();
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    (void)mfprio::acct::read_charges_jsonl(path);
  } catch (const std::exception&) {  // AdminError / UsageError naming the line
  }
  return 0;
}
