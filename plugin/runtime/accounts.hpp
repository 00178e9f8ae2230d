// accounts.hpp - set_accounts (mfprio.h): a host's whole account tree read
// from the ABI records and turned into the store's admin changes.  Generic:
// the records are the store's (accounts, user associations, users' default
// accounts, QOS, partitions); no family's words.
//
//   read_accounts(tree, &want, &why)   checks every record and the tree's
//                                      shape (names, parents, cycles,
//                                      defaults, repeats); a status and a
//                                      message naming the row
//   diff_accounts(store, want)         what differs from the store, as one
//                                      AdminChanges (one transaction), its
//                                      deletions after its upserts (a kept
//                                      account leaving one that goes is moved
//                                      before that one is deleted); empty
//                                      when nothing differs
#pragma once

#include <string>
#include <vector>

#include "mfprio/mfprio.h"
#include "store.hpp"

namespace mfprio {

struct HostAccounts {
  std::vector<acct::AccountRec> accounts;   // root first when given
  std::vector<acct::UserAssocRec> assocs;   // by user, account, partition
  std::vector<acct::UserRec> users;         // by name, default account set
  bool qos_given = false, partitions_given = false;
  std::vector<acct::QosRec> qos;
  std::vector<acct::PartitionRec> partitions;
};

int read_accounts(const mfprio_accounts_t& tree, HostAccounts* want, std::string* why);

acct::AdminChanges diff_accounts(const acct::StoreData& have, const HostAccounts& want);

}  // namespace mfprio
