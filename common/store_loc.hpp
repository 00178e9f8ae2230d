// store_loc.hpp - what an AccountingStorageLoc value is: a PostgreSQL
// server (a libpq URI, postgresql://... or postgres://...) or an SQLite
// file path.  The one rule: conf.cpp (no directory joined to a URI),
// accounting/ (which backend opens it; no file checks on a URI) and the
// plugins' runtime (no "file exists" check on a URI) all ask here.
#pragma once

#include <string>
#include <string_view>

namespace mfprio {

// True for a libpq URI ("postgresql://", "postgres://", any case).
bool is_server_store(std::string_view loc);

// `loc` as messages show it: a URI without its password (the `:secret` of
// "user:secret@" and every "password=" parameter are dropped); a path as is.
std::string store_location_shown(std::string_view loc);

}  // namespace mfprio
