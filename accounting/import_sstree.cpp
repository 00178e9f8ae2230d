// import_sstree.cpp - see import_sstree.hpp.
#include "import_sstree.hpp"

#include <fstream>
#include <map>
#include <set>

#include "bounded_read.hpp"
#include "qconf.hpp"

namespace mfprio::acct {

AdminChanges plan_sstree(const StoreData& current, const std::string& text, const std::string& file,
                         SstreeStats* stats) {
  gridengine::ShareTreeSpec tree;
  std::string why;
  if (!gridengine::parse_share_tree(text, file, &tree, &why)) throw AdminError("import-sstree " + why);
  Model m(current);
  AdminChanges ch;
  SstreeStats st;
  std::map<std::string, TicketObjectRec> projects;
  for (const TicketObjectRec& t : current.ticket_objects)
    if (t.kind == "project") projects[t.name] = t;
  std::map<std::string, size_t> inner;  // account name -> node index
  std::set<std::string> touched;
  std::vector<std::pair<std::string, std::string>> listed;  // account, where
  auto account_of = [&](int idx) { return idx <= 0 ? std::string("root") : tree.nodes[idx].name; };
  for (size_t i = 1; i < tree.nodes.size(); ++i) {
    const gridengine::ShareTreeNodeSpec& n = tree.nodes[i];
    const std::string where = "import-sstree " + file + ":" + std::to_string(n.line) + ": node " +
                              std::to_string(n.id) + " (name \"" + n.name + "\")";
    if (auto p = name_problem(n.name); !p.empty()) throw AdminError(where + ": " + p);
    const bool leaf = n.children.empty();
    if (n.type == gridengine::NodeType::Project) {
      TicketObjectRec& t = projects[n.name];
      t.kind = "project";
      t.name = n.name;
      ch.ticket_objects.push_back(t);
      ++st.projects;
    }
    if (leaf && n.type == gridengine::NodeType::User) {
      AssocTuple key{n.name, account_of(n.parent), ""};
      UserAssocRec& r = m.assocs[key];
      r.user = n.name;
      r.account = account_of(n.parent);
      r.shares = n.shares;
      r.shares_parent = false;
      touched.insert(n.name);
      m.users[n.name].name = n.name;
      ch.assocs.push_back(AssocWrite{r, false});
      ++st.users;
      continue;
    }
    if (n.name == "root") throw AdminError(where + ": \"root\" is the tree's root and cannot be a node");
    auto [it, fresh] = inner.emplace(n.name, i);
    if (!fresh)
      throw AdminError(where + ": a node named \"" + n.name + "\" is already at line " +
                       std::to_string(tree.nodes[it->second].line) + " (account names are unique)");
    AccountRec rec;
    if (auto old = m.accounts.find(n.name); old != m.accounts.end()) rec = old->second;
    rec.name = n.name;
    rec.parent = account_of(n.parent);
    rec.shares = n.shares;
    rec.shares_parent = false;
    m.accounts[n.name] = rec;
    ch.accounts.push_back(rec);
    listed.emplace_back(n.name, where);
    ++st.accounts;
  }
  for (const auto& [name, where] : listed)
    if (auto p = m.parent_problem(name); !p.empty()) throw AdminError(where + ": " + p);
  m.finish_users(touched, ch.users);
  if (stats) *stats = st;
  return ch;
}

SstreeStats import_sstree_file(Store& store, const std::string& file) {
  std::string text;
  try {
    text = read_bounded(file, kImportBounds);
  } catch (const ReadError& e) {
    throw AdminError(std::string("import-sstree: ") + e.what());
  }
  SstreeStats st;
  AdminChanges ch = plan_sstree(store.load(), text, file, &st);
  store.apply_admin(ch);
  return st;
}

}  // namespace mfprio::acct
