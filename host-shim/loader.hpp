// loader.hpp - finds, dlopens and checks a priority plugin, and owns its
// lifetime: Plugin::open -> Plugin::init -> calls through ops() -> ~Plugin
// (fini() if init succeeded, then dlclose).
//
// Checks, in order, each failure a LoadError naming the file: the file exists
// in one of the directories (else every directory searched is named); dlopen
// (RTLD_NOW | RTLD_LOCAL) succeeds; plugin_name, plugin_type, plugin_version
// exist; plugin_type equals the requested type; plugin_version equals
// MFPRIO_ABI_VERSION (a v1 plugin gets "built for mfprio ABI v1 ... rebuild
// the plugin against mfprio.h v2"); the first MFPRIO_OPS_REQUIRED names of
// MFPRIO_OPS_SYMBOLS resolve (init, fini, set_priority, decay, errmsg), the
// others may be missing and stay NULL in ops(); a plugin with a *_json op
// has free_string, one with share_table has share_table_free.  Callers test
// an optional member for NULL before calling it.
#pragma once

#include <mfprio/mfprio.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "conf.hpp"
#include "settings.hpp"

namespace mfprio::host {

struct LoadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A failed plugin call: the message includes the plugin's errmsg().
struct PluginError : std::runtime_error {
  PluginError(const std::string& what, int status) : std::runtime_error(what), status(status) {}
  int status;
};

const char* status_name(int status);

// Where plugin log lines go; level filtering is done by the sink.
struct LogSink {
  int max_level = MFPRIO_LOG_WARNING;  // print levels <= this
  std::string prefix = "mfprio-host";
};

struct Clock {
  bool fixed = false;
  int64_t now = 0;  // when fixed
  int64_t read() const;
};

class Plugin {
 public:
  // Searches `dirs` for plugin_file_name(type) and checks it.
  static std::unique_ptr<Plugin> open(const std::string& type, const std::vector<std::string>& dirs);
  ~Plugin();
  Plugin(const Plugin&) = delete;
  Plugin& operator=(const Plugin&) = delete;

  // Builds the host table from `conf` (which must outlive this object) and
  // calls init.  Throws PluginError with the plugin's errmsg on failure.
  void init(const Conf& conf, const ClusterTotals& cluster, const LogSink* sink, const Clock* clock);

  const mfprio_ops_t& ops() const { return ops_; }
  const std::string& path() const { return path_; }
  const std::string& name() const { return name_; }
  const std::string& type() const { return type_; }

  // Throws PluginError "<what>: <errmsg> (<status name>)" when status != OK.
  void check(int status, const std::string& what) const;
  // The plugin's message for this thread's last failure ("" if none).
  std::string last_error() const;

  // A string returned by the plugin, freed with its free_string.
  struct StringDeleter {
    mfprio_free_string_fn free_fn;
    void operator()(char* s) const {
      if (s && free_fn) free_fn(s);
    }
  };
  using PluginString = std::unique_ptr<char, StringDeleter>;
  PluginString adopt(char* s) const { return PluginString(s, StringDeleter{ops_.free_string}); }

  // The plugin's share table (ops.share_table), freed with its
  // share_table_free; a failed call throws PluginError (check()).  May be
  // null when the plugin returned no table.
  struct ShareTableDeleter {
    void (*free_fn)(mfprio_share_table_t*);
    void operator()(mfprio_share_table_t* t) const {
      if (t && free_fn) free_fn(t);
    }
  };
  using PluginShareTable = std::unique_ptr<mfprio_share_table_t, ShareTableDeleter>;
  PluginShareTable share_table() const;

  // plugin_info_json's text ("" when the plugin has no plugin_info_json);
  // a failed call throws PluginError (check()).
  std::string info_json() const;

 private:
  Plugin() = default;
  struct DlCloser {
    void operator()(void* h) const;
  };

  std::unique_ptr<void, DlCloser> handle_;  // declared first: closed last
  mfprio_ops_t ops_{};
  std::string path_, name_, type_;
  bool initialized_ = false;
  // The host table and what it points at; alive until fini returns.
  mfprio_host_t host_{};
  std::vector<mfprio_kv_t> kv_;
  std::vector<std::string> tres_names_;
  std::vector<mfprio_tres_t> tres_;
};

}  // namespace mfprio::host
