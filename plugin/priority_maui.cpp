// priority_maui.cpp - priority_maui.so: Maui 3.2 job priority from the
// admin's maui.cfg, over the shared edge.
#include "maui_policy.hpp"
#include "plugin_main.hpp"

MFPRIO_PLUGIN("Priority MAUI plugin (mfprio)", "priority/maui",
              std::make_unique<mfprio::maui::MauiPolicy>(mfprio::maui::Flavor::Maui))
