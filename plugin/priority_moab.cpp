// priority_moab.cpp - priority_moab.so: Moab 5.1.2 job priority from the
// admin's moab.cfg, over the shared edge (the maui family, Moab flavour).
#include "maui_policy.hpp"
#include "plugin_main.hpp"

MFPRIO_PLUGIN("Priority MOAB plugin (mfprio)", "priority/moab",
              std::make_unique<mfprio::maui::MauiPolicy>(mfprio::maui::Flavor::Moab))
