// fuzz_maui_cfg.cpp - libFuzzer: maui.cfg / moab.cfg (plugin/families/maui
// maui_cfg.cpp) in both flavors, and the duration syntax.
#include <string>

#include "maui_cfg.hpp"

using namespace mfprio::maui;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::string why;
  Config c1, c2;
  (void)parse_maui_cfg(text, "maui.cfg", Flavor::Maui, &c1, &why);
  (void)parse_maui_cfg(text, "moab.cfg", Flavor::Moab, &c2, &why);
  int64_t s = 0;
  (void)parse_maui_time(text.substr(0, 64), &s);
  return 0;
}
