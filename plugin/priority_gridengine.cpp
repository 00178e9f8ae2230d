// priority_gridengine.cpp - priority_gridengine.so: Grid Engine's job
// priority (urgency, tickets, POSIX priority) over the shared edge.
#include "ge_policy.hpp"
#include "plugin_main.hpp"

MFPRIO_PLUGIN("Priority Grid Engine plugin (mfprio)", "priority/gridengine",
              std::make_unique<mfprio::gridengine::GridEnginePolicy>())
