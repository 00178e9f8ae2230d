// conf_loc.hpp - a stop-gap reader of one slurm.conf key, AccountingStorageLoc.
//
// mfprio-acct --conf FILE needs only this key; the full conf parser lives in
// host-shim (conf_dep) and is not linked here.  Syntax handled: Key=Value
// pairs, keys case-insensitive, '#' starts a comment, several pairs per line,
// double-quoted values; later pairs win; Include lines are not followed.
// A relative path is taken relative to the conf file's directory.
#pragma once

#include <string>

namespace mfprio::acct {

// Throws AdminError("FILE:LINE: ...") or ("FILE: no AccountingStorageLoc").
std::string storage_loc_from_conf(const std::string& file);
// The same on text already read (for tests).
std::string storage_loc_from_text(const std::string& text, const std::string& file);

}  // namespace mfprio::acct
