// loader.cpp - see loader.hpp.  The only file that calls dlopen/dlsym.
#include "loader.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <limits>

namespace mfprio::host {
namespace {

// A total (a double in ClusterTotals) as the host table's integer field:
// negative or NaN is 0, past the field's range its maximum.
template <class T>
T table_count(double v) {
  if (!(v > 0)) return 0;
  if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}

const char* const kOpsSymbols[] = {MFPRIO_OPS_SYMBOLS};
static_assert(sizeof(kOpsSymbols) / sizeof(kOpsSymbols[0]) == MFPRIO_OPS_COUNT,
              "MFPRIO_OPS_SYMBOLS and MFPRIO_OPS_COUNT disagree");
static_assert(sizeof(mfprio_ops_t) == MFPRIO_OPS_COUNT * sizeof(void (*)()),
              "mfprio_ops_t holds exactly the MFPRIO_OPS_SYMBOLS function pointers");
static_assert(sizeof(void*) == sizeof(void (*)()), "dlsym results fit the ops slots");
static_assert(MFPRIO_OPS_REQUIRED <= MFPRIO_OPS_COUNT, "required ops are a prefix of the symbols");

const char* level_name(int level) {
  switch (level) {
    case MFPRIO_LOG_ERROR: return "error";
    case MFPRIO_LOG_WARNING: return "warning";
    case MFPRIO_LOG_INFO: return "info";
    case MFPRIO_LOG_DEBUG: return "debug";
    default: return "log";
  }
}

extern "C" void host_log(void* arg, int level, const char* message) {
  const auto* sink = static_cast<const LogSink*>(arg);
  if (!sink || level > sink->max_level) return;
  std::fprintf(stderr, "%s: plugin %s: %s\n", sink->prefix.c_str(), level_name(level), message ? message : "");
}

extern "C" int64_t host_clock(void* arg) { return static_cast<const Clock*>(arg)->read(); }

}  // namespace

const char* status_name(int status) {
  switch (status) {
    case MFPRIO_OK: return "OK";
    case MFPRIO_EINVAL: return "EINVAL";
    case MFPRIO_ECONF: return "ECONF";
    case MFPRIO_ESTORE: return "ESTORE";
    case MFPRIO_ENOMEM: return "ENOMEM";
    case MFPRIO_ESTATE: return "ESTATE";
    case MFPRIO_ENOENT: return "ENOENT";
    case MFPRIO_EPERM: return "EPERM";
    case MFPRIO_EINTERNAL: return "EINTERNAL";
    case MFPRIO_ENOTSUP: return "ENOTSUP";
    default: return "unknown status";
  }
}

int64_t Clock::read() const { return fixed ? now : static_cast<int64_t>(std::time(nullptr)); }

void Plugin::DlCloser::operator()(void* h) const {
  if (h) dlclose(h);
}

std::unique_ptr<Plugin> Plugin::open(const std::string& type, const std::vector<std::string>& dirs) {
  const std::string file = plugin_file_name(type);
  std::string found;
  for (const std::string& d : dirs) {
    const std::string candidate = d + "/" + file;
    if (::access(candidate.c_str(), F_OK) == 0) {
      found = candidate;
      break;
    }
  }
  if (found.empty()) {
    std::string searched;
    for (const std::string& d : dirs) searched += (searched.empty() ? "" : ", ") + d;
    throw LoadError("plugin " + type + " not found: no " + file + " in " +
                    (dirs.empty() ? std::string("(no directory given)") : searched) + " (PluginDir)");
  }

  std::unique_ptr<Plugin> p(new Plugin());
  p->path_ = found;
  dlerror();
  p->handle_.reset(dlopen(found.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (!p->handle_) {
    const char* e = dlerror();
    throw LoadError(found + ": cannot load plugin: " + (e ? e : "dlopen failed"));
  }
  auto sym = [&](const char* name) -> void* {
    dlerror();
    void* s = dlsym(p->handle_.get(), name);
    return dlerror() ? nullptr : s;
  };
  const char* missing = nullptr;
  const auto* pname = static_cast<const char*>(sym("plugin_name"));
  const auto* ptype = static_cast<const char*>(sym("plugin_type"));
  const auto* pversion = static_cast<const uint32_t*>(sym("plugin_version"));
  if (!pname) missing = "plugin_name";
  else if (!ptype) missing = "plugin_type";
  else if (!pversion) missing = "plugin_version";
  if (missing) throw LoadError(found + ": not an mfprio plugin: missing symbol '" + std::string(missing) + "'");
  p->name_ = pname;
  p->type_ = ptype;
  if (p->type_ != type)
    throw LoadError(found + ": plugin_type is '" + p->type_ + "', expected '" + type + "'");

  if (*pversion == 1)
    throw LoadError(found + ": built for mfprio ABI v1; this host speaks ABI v" + std::to_string(MFPRIO_ABI_VERSION) +
                    ": rebuild the plugin against mfprio.h v" + std::to_string(MFPRIO_ABI_VERSION));
  if (*pversion != MFPRIO_ABI_VERSION)
    throw LoadError(found + ": plugin_version " + std::to_string(*pversion) + " does not match the host's ABI version " +
                    std::to_string(MFPRIO_ABI_VERSION));

  // The first MFPRIO_OPS_REQUIRED names must resolve; the others may be
  // missing (their members stay NULL).  mfprio_ops_t is the function
  // pointers in MFPRIO_OPS_SYMBOLS order (static_asserts above); POSIX
  // guarantees that a void* from dlsym round-trips to a function pointer.
  void* fns[MFPRIO_OPS_COUNT];
  std::string absent;
  for (size_t i = 0; i < MFPRIO_OPS_COUNT; ++i) {
    fns[i] = sym(kOpsSymbols[i]);
    if (!fns[i] && i < MFPRIO_OPS_REQUIRED)
      absent += (absent.empty() ? "'" : ", '") + std::string(kOpsSymbols[i]) + "'";
  }
  if (!absent.empty())
    throw LoadError(found + ": plugin is corrupted: missing required symbol" +
                    (absent.find(',') != std::string::npos ? "s " : " ") + absent);
  static_assert(sizeof(p->ops_) == sizeof(fns), "one slot per symbol");
  std::memcpy(&p->ops_, fns, sizeof fns);
  const mfprio_ops_t& ops = p->ops_;
  // Pairs the header ties together: a plugin that returns memory must say how to free it.
  if (!ops.free_string) {
    const char* needs = ops.job_factors_json ? "job_factors_json"
                        : ops.share_table_json ? "share_table_json"
                        : ops.plugin_info_json ? "plugin_info_json"
                                               : nullptr;
    if (needs)
      throw LoadError(found + ": plugin is corrupted: it provides '" + std::string(needs) +
                      "' but not 'free_string'");
  }
  if (ops.share_table && !ops.share_table_free)
    throw LoadError(found + ": plugin is corrupted: it provides 'share_table' but not 'share_table_free'");
  return p;
}

Plugin::~Plugin() {
  if (initialized_) {
    const int rc = ops_.fini();
    if (rc != MFPRIO_OK)
      std::fprintf(stderr, "mfprio-host: %s: fini failed: %s (%s)\n", path_.c_str(), last_error().c_str(),
                   status_name(rc));
  }
  // handle_ is closed by its deleter after this body.
}

std::string Plugin::last_error() const {
  const char* m = ops_.errmsg ? ops_.errmsg() : nullptr;
  return m && *m ? std::string(m) : std::string("(no message from the plugin)");
}

void Plugin::check(int status, const std::string& what) const {
  if (status == MFPRIO_OK) return;
  throw PluginError(what + ": " + last_error() + " (" + status_name(status) + ")", status);
}

Plugin::PluginShareTable Plugin::share_table() const {
  mfprio_share_table_t* raw = nullptr;
  const int rc = ops_.share_table(&raw);
  PluginShareTable t(raw, ShareTableDeleter{ops_.share_table_free});
  check(rc, "share_table");
  return t;
}

std::string Plugin::info_json() const {
  if (!ops_.plugin_info_json) return std::string();
  char* raw = nullptr;
  const int rc = ops_.plugin_info_json(&raw);
  PluginString text = adopt(raw);
  check(rc, "plugin_info_json");
  return text ? std::string(text.get()) : std::string();
}

void Plugin::init(const Conf& conf, const ClusterTotals& cluster, const LogSink* sink, const Clock* clock) {
  kv_.clear();
  kv_.reserve(conf.pairs().size());
  for (const ConfPair& p : conf.pairs())
    kv_.push_back(mfprio_kv_t{p.key.c_str(), p.value.c_str(), p.file.c_str(), p.line});
  tres_names_.clear();
  tres_.clear();
  for (const auto& [name, count] : cluster.extra) tres_names_.push_back(name);
  for (size_t i = 0; i < cluster.extra.size(); ++i)
    tres_.push_back(mfprio_tres_t{tres_names_[i].c_str(), cluster.extra[i].second});

  host_ = mfprio_host_t{};
  host_.struct_size = sizeof(mfprio_host_t);
  host_.abi_version = MFPRIO_ABI_VERSION;
  host_.conf = kv_.data();
  host_.conf_count = kv_.size();
  host_.log = sink ? host_log : nullptr;
  host_.log_arg = const_cast<LogSink*>(sink);
  host_.clock = clock ? host_clock : nullptr;
  host_.clock_arg = const_cast<Clock*>(clock);
  host_.cluster_nodes = table_count<uint32_t>(cluster.nodes);
  host_.cluster_cpus = table_count<uint32_t>(cluster.cpus);
  host_.cluster_mem_mb = table_count<uint64_t>(cluster.mem_mb);
  host_.cluster_tres = tres_.data();
  host_.cluster_tres_count = tres_.size();

  const int rc = ops_.init(&host_);
  check(rc, path_ + ": init failed");
  initialized_ = true;
}

}  // namespace mfprio::host
