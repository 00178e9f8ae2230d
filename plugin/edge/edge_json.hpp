// edge_json.hpp - the views the edge renders from generic terms and share
// columns: JSON with jansson (job_factors_json, share_table_json,
// plugin_info_json); the C share table block is share_block.hpp's.
// Families never see these.
#pragma once

#include "mfprio/mfprio.h"
#include "policy.hpp"

namespace mfprio::edge {

// Each returns malloc'd memory the host frees with free_string / share_table_free.
char* factors_json(const mfprio_job_t& job, const mfprio_factors_t& f);
char* share_json(const ShareView& v);
char* info_json(const char* plugin_type, const InfoView& v);

}  // namespace mfprio::edge
