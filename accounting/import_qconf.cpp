// import_qconf.cpp - see import_qconf.hpp.
#include "import_qconf.hpp"

#include <jansson.h>

#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>

#include "bounded_read.hpp"
#include "qconf.hpp"

#include "json_util.hpp"

namespace mfprio::acct {
namespace {

std::string slurp(const std::string& file, const char* option) {
  try {
    return read_bounded(file, kImportBounds);  // the one bound rule for every file read
  } catch (const ReadError& e) {
    throw AdminError(std::string("import-qconf ") + option + " " + e.what());
  }
}

// --global: Grid Engine's auto_user_* (see import_qconf.hpp).
void auto_user_objects(const StoreData& current, const std::string& path, AdminChanges* ch, QconfStats* st) {
  gridengine::GlobalConf g;
  std::string why;
  if (!gridengine::parse_global_conf(slurp(path, "--global"), path, &g, &why))
    throw AdminError("import-qconf " + why);
  if (!g.auto_users()) {
    ch->settings = {{kSettingAutoUserFshare, ""}, {kSettingAutoUserOticket, ""}};
    st->notes.push_back(path + ": enforce_user is " + g.enforce_user +
                        ": Grid Engine creates no user objects, auto_user_fshare/oticket not applied");
    return;
  }
  ch->settings = {{kSettingAutoUserFshare, std::to_string(g.auto_user_fshare)},
                  {kSettingAutoUserOticket, std::to_string(g.auto_user_oticket)}};
  std::set<std::string> has_object;
  for (const TicketObjectRec& t : current.ticket_objects)
    if (t.kind == "user") has_object.insert(t.name);
  for (const TicketObjectRec& t : ch->ticket_objects)
    if (t.kind == "user") has_object.insert(t.name);
  for (const UserRec& u : current.users)
    if (!has_object.count(u.name)) {
      ch->ticket_objects.push_back(TicketObjectRec{"user", u.name, g.auto_user_fshare, g.auto_user_oticket});
      ++st->auto_users;
    }
}

}  // namespace

QconfStats import_qconf_files(Store& store, const QconfFiles& files) {
  using gridengine::QconfObjectKind;
  QconfStats st;
  JsonPtr root(json_object());
  // Per section of the document, the FILE:LINE of each record (for messages).
  std::map<std::string, std::vector<std::string>> where;
  auto section = [&](const std::vector<std::string>& paths, QconfObjectKind kind, const char* option) {
    for (const std::string& path : paths) {
      std::vector<gridengine::QconfObject> objs;
      std::string why;
      if (!gridengine::parse_qconf_objects(slurp(path, option), path, kind, &objs, &why))
        throw AdminError("import-qconf " + why);
      for (const gridengine::QconfObject& o : objs) {
        const std::string at = path + ":" + std::to_string(o.line);
        if (kind == QconfObjectKind::Userset && !o.department) {
          st.notes.push_back(at + ": userset '" + o.name + "' is an ACL only (no DEPT): no tickets, passed over");
          continue;
        }
        const char* name = kind == QconfObjectKind::User ? "users"
                           : kind == QconfObjectKind::Project ? "projects" : "departments";
        json_t* arr = json_object_get(root.get(), name);
        if (!arr) {
          arr = json_array();
          put(root.get(), name, arr);
        }
        JsonPtr rec(json_object());
        put(rec.get(), "name", json_string(o.name.c_str()));
        put(rec.get(), "fshare", json_integer(o.fshare));
        put(rec.get(), "oticket", json_integer(o.oticket));
        if (json_array_append_new(arr, rec.release()) != 0) throw std::bad_alloc();
        where[name].push_back(at);
        ++(kind == QconfObjectKind::User ? st.users : kind == QconfObjectKind::Project ? st.projects : st.departments);
      }
    }
  };
  section(files.users, QconfObjectKind::User, "--users");
  section(files.projects, QconfObjectKind::Project, "--projects");
  section(files.usersets, QconfObjectKind::Userset, "--usersets");
  char* text = json_dumps(root.get(), JSON_COMPACT | JSON_ENSURE_ASCII);
  if (!text) throw std::bad_alloc();
  const std::string doc = text;
  free(text);
  AdminChanges ch;
  const StoreData current = store.load();
  try {
    ch = plan_import(current, doc, "import-qconf");
  } catch (const AdminError& e) {
    // "users[3] (name "x")" -> "FILE:LINE (name "x")".
    const std::string msg = e.what();
    static const std::regex rec(R"((users|projects|departments)\[(\d+)\])");
    std::smatch m;
    if (std::regex_search(msg, m, rec)) {
      const auto& w = where[m[1].str()];
      const size_t i = std::stoul(m[2].str());
      if (i < w.size())
        throw AdminError("import-qconf: " + w[i] + msg.substr(static_cast<size_t>(m.position(0) + m.length(0))));
    }
    throw;
  }
  if (!files.global.empty()) auto_user_objects(current, files.global, &ch, &st);
  try {
    store.apply_admin(ch);
  } catch (const StoreError& e) {
    throw AdminError(std::string("import-qconf: ") + e.what());
  }
  return st;
}

}  // namespace mfprio::acct
