// conf_loc.cpp - see conf_loc.hpp.  The conf syntax (comments, quotes,
// several pairs a line, Include) is the host's parser (host-shim/conf.hpp):
// one reader of slurm.conf for the whole project.  Only reads.
#include "conf_loc.hpp"

#include "admin.hpp"
#include "conf.hpp"

namespace mfprio::acct {
namespace {

std::string storage_loc(const host::Conf& conf, const std::string& file) {
  const host::ConfPair* p = conf.find("AccountingStorageLoc");
  if (!p) throw AdminError(file + ": no AccountingStorageLoc= key");
  std::string loc = p->value;
  if (loc.empty())
    throw AdminError(p->file + ":" + std::to_string(p->line) + ": empty AccountingStorageLoc");
  if (loc[0] != '/') {  // relative to the file that wrote it
    const size_t slash = p->file.rfind('/');
    if (slash != std::string::npos) loc = p->file.substr(0, slash + 1) + loc;
  }
  return loc;
}

}  // namespace

std::string storage_loc_from_text(const std::string& text, const std::string& file) {
  try {
    return storage_loc(host::Conf::parse(text, file), file);
  } catch (const host::ConfError& e) {
    throw AdminError(e.what());
  }
}

std::string storage_loc_from_conf(const std::string& file) {
  try {
    return storage_loc(host::Conf::load(file), file);
  } catch (const host::ConfError& e) {
    throw AdminError(e.what());
  }
}

}  // namespace mfprio::acct
