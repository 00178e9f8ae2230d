// plugin_main.hpp - what a priority_<family>.cpp writes: the identity symbols
// and the factory the edge calls at init.  A family's shared object is this
// macro and nothing else:
//
//   #include "plugin_main.hpp"
//   #include "basic_policy.hpp"
//   MFPRIO_PLUGIN("Priority BASIC plugin (mfprio)", "priority/basic",
//                 std::make_unique<mfprio::basic::BasicPolicy>())
#pragma once

#define MFPRIO_PLUGIN_IMPLEMENTATION
#include <memory>

#include "mfprio/mfprio.h"
#include "policy.hpp"

#define MFPRIO_PLUGIN(NAME, TYPE, MAKE)                                  \
  extern "C" {                                                           \
  MFPRIO_EXPORT extern const char plugin_name[] = NAME;                     \
  MFPRIO_EXPORT extern const char plugin_type[] = TYPE;                     \
  MFPRIO_EXPORT extern const uint32_t plugin_version = MFPRIO_ABI_VERSION;      \
  }                                                                      \
  std::unique_ptr<mfprio::Policy> mfprio::make_policy() { return MAKE; }
