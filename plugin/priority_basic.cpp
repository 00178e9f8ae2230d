// priority_basic.cpp - priority_basic.so: the FIFO family over the shared edge.
#include "basic_policy.hpp"
#include "plugin_main.hpp"

MFPRIO_PLUGIN("Priority BASIC plugin (mfprio)", "priority/basic",
              std::make_unique<mfprio::basic::BasicPolicy>())
