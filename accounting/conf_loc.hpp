// conf_loc.hpp - AccountingStorageLoc from a slurm.conf-style file, for
// mfprio-acct --conf FILE.  Parsed by the host's conf parser (conf_dep), so
// Include, quotes and comments behave as for mfprio-host; the last pair
// wins.  A relative path is taken relative to the file that wrote it; with
// no key, the documented default (conf.hpp: mfprio.db in StateSaveLocation,
// else beside the conf).
#pragma once

#include <string>

namespace mfprio::acct {

// Throws AdminError("FILE:LINE: ...") or ("FILE: no AccountingStorageLoc= ...").
std::string storage_loc_from_conf(const std::string& file);
// The same on text already read (for tests).
std::string storage_loc_from_text(const std::string& text, const std::string& file);

}  // namespace mfprio::acct
