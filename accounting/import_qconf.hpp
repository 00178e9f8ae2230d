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
//
//   qconf -sconf  -> with enforce_user auto, auto_user_fshare and
//                    auto_user_oticket: every user of the store without a
//                    user object (none in the store, none in --users) gets
//                    one with these values now, and the store keeps them
//                    (settings) for every user it creates later (add user,
//                    import-sstree, load, import), as Grid Engine gives them
//                    to the user objects it creates at a user's first job;
//                    with enforce_user true/false the kept values are
//                    removed (Grid Engine creates no user objects then).
#pragma once

#include <string>
#include <vector>

#include "import_export.hpp"
#include "store.hpp"

namespace mfprio::acct {

struct QconfFiles {
  std::vector<std::string> users, projects, usersets;  // paths
  std::string global;  // qconf -sconf text ("" = none)
};

struct QconfStats {
  size_t users = 0, projects = 0, departments = 0;
  size_t auto_users = 0;  // existing users given the auto_user_* object
  std::vector<std::string> notes;  // "FILE:LINE: userset 'x' is an ACL only: passed over"
};

// Validate fully against the store's current content, then one transaction.
QconfStats import_qconf_files(Store& store, const QconfFiles& files);

}  // namespace mfprio::acct
