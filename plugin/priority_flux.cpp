// priority_flux.cpp - priority_flux.so: flux-accounting's multi-factor job
// priority (or the formula of Flux's "Job Priority Plugin" design page) over the shared edge.
#include "flux_policy.hpp"
#include "plugin_main.hpp"

MFPRIO_PLUGIN("Priority FLUX plugin (mfprio)", "priority/flux", std::make_unique<mfprio::flux::FluxPolicy>())
