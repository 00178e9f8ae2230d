// fuzz_qconf.cpp - libFuzzer: the Grid Engine qconf readers
// (common/qconf.cpp): -ssconf, -sc, -sstree, values.
#include <string>

#include "qconf.hpp"

using namespace mfprio::gridengine;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int which = data[0] % 4;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string why;
  switch (which) {
    case 0: {
      SchedConf s;
      (void)parse_sched_conf(text, "sched.conf", &s, &why);
      break;
    }
    case 1: {
      ComplexTable t;
      (void)parse_complexes(text, "complexes", &t, &why);
      break;
    }
    case 2: {
      ShareTreeSpec t;
      (void)parse_share_tree(text, "sharetree", &t, &why);
      break;
    }
    default: {
      double v = 0;
      for (ComplexType t : {ComplexType::Int, ComplexType::Double, ComplexType::Time, ComplexType::Memory,
                            ComplexType::Bool, ComplexType::String})
        (void)parse_ge_value(t, text, &v);
    }
  }
  return 0;
}
