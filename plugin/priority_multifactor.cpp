// priority_multifactor.cpp - priority_multifactor.so: Slurm's multifactor
// family over the shared edge.
#include "mf_policy.hpp"
#include "plugin_main.hpp"

MFPRIO_PLUGIN("Priority MULTIFACTOR plugin (mfprio)", "priority/multifactor",
              std::make_unique<mfprio::multifactor::MultifactorPolicy>())
