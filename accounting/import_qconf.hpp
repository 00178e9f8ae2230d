// import_qconf.hpp - `mfprio-acct import-qconf`: Grid Engine's users,
// projects and departments with their functional shares and override
// tickets, from the site's own `qconf -suser`, `qconf -sprj` and `qconf -su`
// text (read by common/qconf.hpp's parse_qconf_objects).
//
//   qconf -suser  -> user records {name, fshare, oticket}
//   qconf -sprj   -> projects {name, fshare, oticket}
//   qconf -su     -> departments {name, fshare, oticket} for each userset whose
//                    type includes DEPT; an ACL-only userset carries no
//                    tickets and is passed over (noted)
// The records go through the very validation of `import FILE.json`
// (plan_import), in one transaction; errors name FILE:LINE (the object's
// `name` line).  Users are not given an association: the share tree
// (import-sstree) or `add user` places them.
#pragma once

#include <string>
#include <vector>

#include "import_export.hpp"
#include "store.hpp"

namespace mfprio::acct {

struct QconfFiles {
  std::vector<std::string> users, projects, usersets;  // paths
};

struct QconfStats {
  size_t users = 0, projects = 0, departments = 0;
  std::vector<std::string> notes;  // "FILE:LINE: userset 'x' is an ACL only: passed over"
};

// Validate fully against the store's current content, then one transaction.
QconfStats import_qconf_files(Store& store, const QconfFiles& files);

}  // namespace mfprio::acct
