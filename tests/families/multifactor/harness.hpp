// harness.hpp - loads the real priority_multifactor.so with dlopen and
// drives it through the C ABI, over a real SQLite store in a temp directory.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "mfprio/mfprio.h"
#include "store.hpp"
#include "store_location.hpp"
#include "tempdir.hpp"

namespace mfprio::test {

inline std::string plugin_path(const char* name) {
  const char* dir = std::getenv("MFPRIO_PLUGIN_BUILD_DIR");
  return std::string(dir ? dir : "plugin") + "/" + name;
}

// Builds store contents with readable one-liners.
struct StoreBuilder {
  acct::AdminChanges ch;
  StoreBuilder& account(const std::string& name, const std::string& parent, uint32_t shares,
                        bool shares_parent = false, uint32_t priority = 0) {
    acct::AccountRec a;
    a.name = name;
    a.parent = parent;
    a.shares = shares;
    a.shares_parent = shares_parent;
    a.priority = priority;
    ch.accounts.push_back(a);
    return *this;
  }
  StoreBuilder& user(const std::string& name, const std::string& account, uint32_t shares,
                     double usage = 0, uint32_t priority = 0, bool shares_parent = false) {
    acct::AssocWrite w;
    w.rec.user = name;
    w.rec.account = account;
    w.rec.shares = shares;
    w.rec.raw_usage = usage;
    w.rec.priority = priority;
    w.rec.shares_parent = shares_parent;
    w.set_usage = true;
    ch.assocs.push_back(w);
    return *this;
  }
  StoreBuilder& qos(const std::string& name, uint32_t priority, double usage_factor = 1.0) {
    acct::QosRec q;
    q.name = name;
    q.priority = priority;
    q.usage_factor = usage_factor;
    ch.qos.push_back(q);
    return *this;
  }
  StoreBuilder& partition(const std::string& name, uint32_t job_factor, const std::string& billing = "",
                          bool is_default = false, const std::string& totals = "") {
    acct::PartitionRec p;
    p.name = name;
    p.job_factor = job_factor;
    p.billing_weights = billing;
    p.is_default = is_default;
    p.tres_totals = totals;
    ch.partitions.push_back(p);
    return *this;
  }
  void write(const std::string& path) {
    auto st = acct::Store::open(path, acct::OpenOptions{});
    st->apply_admin(ch);
  }
};

// The plugin, loaded and initialised.
class Plugin {
 public:
  explicit Plugin(const std::string& so = plugin_path("priority_multifactor.so")) {
    dl_ = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!dl_) throw std::runtime_error(dlerror());
    // ABI v2: the first MFPRIO_OPS_REQUIRED operations must exist; the
    // multifactor family provides every optional one too.
    const char* names[] = {MFPRIO_OPS_SYMBOLS};
    void** slots = reinterpret_cast<void**>(&ops);
    for (int i = 0; i < MFPRIO_OPS_COUNT; ++i) {
      slots[i] = dlsym(dl_, names[i]);
      if (!slots[i] && i < MFPRIO_OPS_REQUIRED) throw std::runtime_error(std::string("missing ") + names[i]);
    }
  }
  ~Plugin() {
    if (inited_) ops.fini();
    if (dl_) dlclose(dl_);
  }
  // conf: "Key=Value" strings, all attributed to test.conf line i+1.
  int init(const std::vector<std::string>& conf, int64_t now = 1'700'000'000) {
    conf_ = conf;
    keys_.clear();
    vals_.clear();
    files_.clear();
    lines_.clear();
    for (const std::string& c : conf_) {
      const size_t eq = c.find('=');
      keys_.push_back(c.substr(0, eq));
      vals_.push_back(c.substr(eq + 1));
      files_.push_back("test.conf");
      lines_.push_back(static_cast<uint32_t>(keys_.size()));
    }
    return init_kv(now);
  }
  // The pairs a conf reader gave (file and line kept: several pairs of one
  // line, PartitionName=... PriorityJobFactor=..., stay one record).
  template <class Pairs>
  int init_pairs(const Pairs& pairs, int64_t now = 1'700'000'000) {
    keys_.clear();
    vals_.clear();
    files_.clear();
    lines_.clear();
    for (const auto& c : pairs) {
      keys_.push_back(c.key);
      vals_.push_back(c.value);
      files_.push_back(c.file);
      lines_.push_back(c.line);
    }
    return init_kv(now);
  }

 private:
  int init_kv(int64_t now) {
    kv_.clear();
    for (size_t i = 0; i < keys_.size(); ++i)
      kv_.push_back({keys_[i].c_str(), vals_[i].c_str(), files_[i].c_str(), lines_[i]});
    now_ = now;
    mfprio_host_t h{};
    h.struct_size = sizeof h;
    h.abi_version = MFPRIO_ABI_VERSION;
    h.conf = kv_.data();
    h.conf_count = kv_.size();
    h.log = [](void* arg, int level, const char* msg) {
      static_cast<Plugin*>(arg)->logs.push_back(std::to_string(level) + " " + msg);
    };
    h.log_arg = this;
    h.clock = [](void* arg) { return *static_cast<int64_t*>(arg); };
    h.clock_arg = &now_;
    h.cluster_nodes = nodes;
    h.cluster_cpus = cpus;
    h.cluster_mem_mb = mem_mb;
    h.cluster_tres = cluster_tres.data();
    h.cluster_tres_count = cluster_tres.size();
    const int rc = ops.init(&h);
    inited_ = rc == MFPRIO_OK;
    return rc;
  }

 public:
  int fini() {
    inited_ = false;
    return ops.fini();
  }
  std::string err() const { return ops.errmsg(); }
  // set_priority / job_factors of one job at `now`; a call that fails fails
  // the test, naming the plugin's errmsg.
  uint32_t priority(const mfprio_job_t& j, int64_t now) {
    uint32_t v = 0;
    EXPECT_EQ(ops.set_priority(&j, now, &v), MFPRIO_OK) << err();
    return v;
  }
  mfprio_factors_t factors(const mfprio_job_t& j, int64_t now) {
    mfprio_factors_t f{};
    f.struct_size = sizeof f;
    EXPECT_EQ(ops.job_factors(&j, now, &f), MFPRIO_OK) << err();
    return f;
  }

  // A share-table row's numbers, read by the column names the family gives.
  struct ShareValues {
    double raw_shares = 0, norm_shares = 0, raw_usage = 0, norm_usage = 0, eff_usage = 0,
           level_fs = 0, fairshare = 0;
  };
  // The share-table row of a user (or account when user is empty).
  ShareValues row(const std::string& account, const std::string& user = "") {
    mfprio_share_table_t* t = nullptr;
    EXPECT_EQ(ops.share_table(&t), MFPRIO_OK) << err();
    ShareValues found;
    bool ok = false;
    for (size_t i = 0; t && i < t->row_count; ++i) {
      const mfprio_share_row_t& r = t->rows[i];
      const bool is_user = r.is_user;
      if (r.account == account && (user.empty() ? !is_user : (is_user && r.user == user))) {
        ok = true;
        for (uint32_t c = 0; c < t->column_count; ++c) {
          const std::string name = t->columns[c].name;
          const double v = r.cells[c].text ? 0.0 : r.cells[c].value;
          if (name == "raw_shares") found.raw_shares = v;
          else if (name == "norm_shares") found.norm_shares = v;
          else if (name == "raw_usage") found.raw_usage = v;
          else if (name == "norm_usage") found.norm_usage = v;
          else if (name == "eff_usage") found.eff_usage = v;
          else if (name == "level_fs") found.level_fs = v;
          else if (name == "fairshare") found.fairshare = v;
        }
      }
    }
    if (t) ops.share_table_free(t);
    EXPECT_TRUE(ok) << "no share row for " << account << "/" << user;
    return found;
  }

  // The host's clock from now on (init sets it; a test moves it as a
  // controller's clock moves: job ends are never charged past it).
  void set_clock(int64_t t) { now_ = t; }

  mfprio_ops_t ops{};
  std::vector<std::string> logs;  // "<level> <message>" from the plugin's log sink
  uint32_t nodes = 10, cpus = 240;
  uint64_t mem_mb = 10 * 262144;
  std::vector<mfprio_tres_t> cluster_tres;

 private:
  void* dl_ = nullptr;
  bool inited_ = false;
  int64_t now_ = 0;
  std::vector<std::string> conf_, keys_, vals_, files_;
  std::vector<uint32_t> lines_;
  std::vector<mfprio_kv_t> kv_;
};

// A job's term by name (the ABI v2 breakdown); fails the test when absent.
inline mfprio_term_t term(const mfprio_factors_t& f, const std::string& name) {
  for (uint32_t i = 0; i < f.term_count; ++i)
    if (name == f.terms[i].name) return f.terms[i];
  ADD_FAILURE() << "no term '" << name << "'";
  return mfprio_term_t{};
}
inline uint32_t term_index(const mfprio_factors_t& f, const std::string& name) {
  for (uint32_t i = 0; i < f.term_count; ++i)
    if (name == f.terms[i].name) return i;
  ADD_FAILURE() << "no term '" << name << "'";
  return 0;
}
inline uint32_t term_children(const mfprio_factors_t& f, const std::string& name) {
  int parent = -1;
  uint32_t n = 0;
  for (uint32_t i = 0; i < f.term_count; ++i) {
    if (name == f.terms[i].name && f.terms[i].parent < 0) parent = static_cast<int>(i);
    else if (parent >= 0 && f.terms[i].parent == parent) ++n;
  }
  return n;
}

// A pending job with sensible defaults; tests set what they pin.
inline mfprio_job_t job(uint64_t id, const char* user, const char* account = nullptr,
                        const char* partition = nullptr) {
  mfprio_job_t j{};
  j.struct_size = sizeof j;
  j.job_id = id;
  j.user = user;
  j.account = account;
  j.partition = partition;
  j.cpus = 1;
  j.min_nodes = 1;
  j.submit_time = j.eligible_time = 1'700'000'000;
  return j;
}

// Another host on the same store: a child process, forked before this
// process loads the plugin, that loads its own copy when told to and runs
// one decay pass at the time it is given.
class OtherHost {
 public:
  OtherHost(const std::string& so, std::vector<std::string> conf) {
    if (pipe(go_) != 0 || pipe(done_) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      close(go_[1]);  // so that a parent gone (or never asking) reads as EOF
      close(done_[0]);
      int64_t now = 0;
      int rc = 12;
      if (read(go_[0], &now, sizeof now) == sizeof now) {
        Plugin other(so);
        rc = other.init(conf, now) != MFPRIO_OK ? 10 : other.ops.decay(now, nullptr, 0) != MFPRIO_OK ? 11 : 0;
      }
      if (write(done_[1], &rc, sizeof rc) != sizeof rc) rc = 13;
      _exit(rc);
    }
    close(go_[0]);
    close(done_[1]);
    go_[0] = done_[1] = -1;
  }
  ~OtherHost() {
    for (int fd : {go_[0], go_[1], done_[0], done_[1]})
      if (fd >= 0) close(fd);
    if (pid_ > 0) waitpid(pid_, nullptr, 0);
  }
  int decay(int64_t now) {
    int rc = -1;
    if (pid_ <= 0 || write(go_[1], &now, sizeof now) != sizeof now) return -1;
    if (read(done_[0], &rc, sizeof rc) != sizeof rc) return -1;
    return rc;
  }

 private:
  int go_[2] = {-1, -1}, done_[2] = {-1, -1};
  pid_t pid_ = -1;
};

}  // namespace mfprio::test
