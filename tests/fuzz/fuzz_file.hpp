// fuzz_file.hpp - for the harnesses whose reader takes a path: writes one
// input's bytes to a file made once per process (mkstemp, named for the
// harness) and returns its path.  Any failure aborts: libFuzzer reports it.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace mfprio::fuzz {

inline const std::string& write_input_file(const char* harness, const uint8_t* data, size_t size) {
  static std::string path;
  if (path.empty()) {
    std::string tmpl = std::string("/tmp/mfprio-fuzz-") + harness + "-XXXXXX";
    const int fd = mkstemp(tmpl.data());
    if (fd < 0) abort();
    close(fd);
    path = tmpl;
  }
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) abort();
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  return path;
}

}  // namespace mfprio::fuzz
