// fuzz_swf.cpp - libFuzzer: the SWF trace reader (host-shim/swf.cpp), both
// the text path and the gzFile path (bytes written to a file: NUL bytes and
// long lines go through gzgets as in a real trace).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "swf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)mfprio::host::parse_swf_text(text, "fuzz.swf", size % 7);
  } catch (const mfprio::host::SwfError&) {
  }
  static std::string path;
  if (path.empty()) {
    char tmpl[] = "/tmp/mfprio-fuzz-swf-XXXXXX";
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
    (void)mfprio::host::read_swf(path);
  } catch (const mfprio::host::SwfError&) {
  }
  return 0;
}
