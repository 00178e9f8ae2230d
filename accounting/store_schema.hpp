// store_schema.hpp - the store's schema version and forward migrations (private).
//
// Entry point: migrate(db, read_only) right after open.  Returns the version
// the file is at afterwards.
// Invariant: PRAGMA user_version = number of migrations applied; each migration
// runs in its own transaction together with the version bump, so a crash
// leaves the file at a whole version.  A file newer than this build is refused.
#pragma once

#include <sqlite3.h>

namespace mfprio::acct::detail {

inline constexpr int kSchemaVersion = 8;

int migrate(sqlite3* db, bool read_only);

}  // namespace mfprio::acct::detail
