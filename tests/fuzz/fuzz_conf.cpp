// fuzz_conf.cpp - libFuzzer: the slurm.conf syntax reader (common/conf.cpp).
// Any bytes: a ConfError or a parse, never a crash, leak or UB.
#include <cstddef>
#include <cstdint>
#include <string>

#include "conf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    mfprio::Conf c = mfprio::Conf::parse(std::string(reinterpret_cast<const char*>(data), size), "fuzz.conf");
    std::string origin;
    (void)mfprio::store_location(c.pairs(), &origin);
  } catch (const mfprio::ConfError&) {
  }
  return 0;
}
