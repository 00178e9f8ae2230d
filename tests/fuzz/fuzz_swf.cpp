// fuzz_swf.cpp - libFuzzer: the SWF trace reader (host-shim/swf.cpp), both
// the text path and the gzFile path (bytes written to a file: NUL bytes and
// long lines go through gzgets as in a real trace).
#include <cstdint>
#include <string>

#include "fuzz_file.hpp"
#include "swf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)mfprio::host::parse_swf_text(text, "fuzz.swf", size % 7);
  } catch (const mfprio::host::SwfError&) {
  }
  try {
    (void)mfprio::host::read_swf(mfprio::fuzz::write_input_file("swf", data, size));
  } catch (const mfprio::host::SwfError&) {
  }
  return 0;
}
