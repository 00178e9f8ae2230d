// simulate_cmd.hpp - the `simulate` and `explain` commands' entry points
// for main.cpp (simulate.hpp holds the simulation itself, explain.hpp the
// explanation).
#pragma once

#include "cli.hpp"

namespace mfprio::host {

// mfprio-host simulate ...: returns the exit status; throws with a one-line
// reason (the caller prints it).
int cmd_simulate(const Options& o);

}  // namespace mfprio::host
