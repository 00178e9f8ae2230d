// sim_svg.hpp - the policy lab's plot, written by hand as SVG 1.1 (no
// library): one row per policy, left the delivered share of CPU time per
// account over time (solid lines) against its target share (dashed), right
// the cumulative distribution of waits (log time axis).  Deterministic text.
#pragma once

#include <string>
#include <vector>

#include "simulate.hpp"

namespace mfprio::host {

std::string sim_svg(const std::string& title, const std::vector<PolicyResult>& policies);

}  // namespace mfprio::host
