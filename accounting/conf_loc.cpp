// conf_loc.cpp - see conf_loc.hpp.  The conf syntax (comments, quotes,
// several pairs a line, Include) and the store-location rule are common/'s
// (conf.hpp): one reader of slurm.conf for the whole project.  Only reads.
#include "conf_loc.hpp"

#include "admin.hpp"
#include "conf.hpp"

namespace mfprio::acct {
namespace {

std::string storage_loc(const Conf& conf, const std::string& file) {
  // The one rule (conf.hpp), default location included.
  const std::string loc = store_location(conf.pairs(), nullptr);
  if (loc.empty())
    throw AdminError(file + ": no AccountingStorageLoc= or StateSaveLocation= key, and no conf file to place "
                            "the default store beside");
  return loc;
}

}  // namespace

std::string storage_loc_from_text(const std::string& text, const std::string& file) {
  try {
    return storage_loc(Conf::parse(text, file), file);
  } catch (const ConfError& e) {
    throw AdminError(e.what());
  }
}

std::string storage_loc_from_conf(const std::string& file) {
  try {
    return storage_loc(Conf::load(file), file);
  } catch (const ConfError& e) {
    throw AdminError(e.what());
  }
}

}  // namespace mfprio::acct
