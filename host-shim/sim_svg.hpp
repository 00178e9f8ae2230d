// sim_svg.hpp - the policy lab's plot, written by hand as SVG 1.1 (no
// library): the policies' wait and bounded-slowdown distributions overlaid
// on common log axes, each user's and account's mean wait per policy, and
// per policy the accounts' delivered shares against their targets and the
// processors busy over time (layout in sim_svg.cpp).  Deterministic text.
#pragma once

#include <string>
#include <vector>

#include "simulate.hpp"

namespace mfprio::host {

std::string sim_svg(const std::string& title, const std::vector<PolicyResult>& policies);

}  // namespace mfprio::host
