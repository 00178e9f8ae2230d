// layout_sge81.hpp - the "sge-8.1.9" view layout: Son of Grid Engine 8.1.9's
// qstat job tables, printed by `sprio --view pri|urg|ext` from the terms the
// family names (plugin_info_json "view", layout.hpp):
//   "terms": column -> term name, columns prior nurg npprior ntckts urg
//            rrcontr wtcontr dlcontr ppri tckts ovrts otckt ftckt stckt share
//            slots department (a TEXT term); the urgency parts (urg's
//            children rrcontr, wtcontr, dlcontr) read the term's
//            contribution, the others its factor; a term anywhere in the
//            breakdown (a child too) is found by its name.
// The rows are the shown jobs in qstat's order (the running ones by job id,
// then the pending ones by prior descending, then submission, then job id;
// -S sorts them instead), each as
// `qstat -u '*' -pri`, `-urg` or `-ext` prints a job of it: the job name
// (job file "name"), the user, the project (the account, "NA" without one),
// the state (qw, hqw, r, s), the submission (a running job: its start) and
// deadline times as local MM/DD/YYYY HH:MM:SS, an empty queue for a pending
// job (a running one: its partition) and no array task id.  sprio without
// --view and sshare print the generic layout.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "layout.hpp"
#include "views.hpp"

namespace mfprio::host {

const Layout& sge81_layout();

// ---- details (tests call them directly) ------------------------------------
enum class QstatView { Pri, Urg, Ext };
// The table of `rows` in the order given; header: the two header lines first.
std::string format_qstat(const std::vector<SprioRow>& rows, QstatView view, const std::map<std::string, std::string>& terms,
                         bool header);
// qstat's order: running jobs by job id, then pending ones by prior descending, submission, job id.
void sort_qstat_rows(std::vector<SprioRow>* rows, const std::map<std::string, std::string>& terms);

}  // namespace mfprio::host
