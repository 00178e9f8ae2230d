// import_sstree.hpp - `mfprio-acct import-sstree FILE`: a Grid Engine share
// tree (`qconf -sstree` text, read by the gridengine family's parser) as
// store records, validated like the import JSON.
//
//   inner node            -> account (parent: the node's parent; "root" for
//                            the tree's root, which is the store's root)
//   leaf of type 0        -> user association (user = node name, account =
//                            the parent), `default` included
//   leaf of type 1        -> an account without children
//   node of type 1        -> also a project (ticket_objects; an existing
//                            project keeps its fshare/oticket)
// 8.1.9's text after a qmaster restart (every id 0) is read by the records'
// order, as qconf -Mstree reads it (parse_share_tree).
// Errors name FILE:LINE (the node's id= line): syntax (the parser), names,
// an inner node name used twice, a node named root, parent cycles against
// the accounts already in the store.
#pragma once

#include <string>

#include "admin.hpp"
#include "store.hpp"

namespace mfprio::acct {

struct SstreeStats {
  size_t accounts = 0, users = 0, projects = 0;
};

AdminChanges plan_sstree(const StoreData& current, const std::string& text, const std::string& file,
                         SstreeStats* stats = nullptr);
SstreeStats import_sstree_file(Store& store, const std::string& file);

}  // namespace mfprio::acct
