// slurm_view.cpp - see slurm_view.hpp.  Nothing here knows a family: the
// family's name comes from the conf (family=) and the pass file (_family).
#include "slurm_view.hpp"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>

#include "json_util.hpp"
#include "params.hpp"
#include "slurm/adapter_conf.hpp"
#include "strings.hpp"

namespace mfprio::host {
namespace {

constexpr const char* kPassFile = "mfprio-pass.jsonl";

std::string where(const ConfPair& p) { return p.file + ":" + std::to_string(p.line) + ": " + p.key; }

// The pass file's first line: its time and family.  An empty file (a pass
// with no job) has neither: its time is the file's modification time.
void read_pass_head(const std::string& file, int64_t* when, std::string* family) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read '" + file + "' (priority/mfprio's pass file)");
  std::string line;
  char ch;
  while (in.get(ch) && ch != '\n') {
    line += ch;
    if (line.size() > (1u << 20)) throw std::runtime_error(file + ":1: a line over 1 MiB: not a pass file");
  }
  if (line.empty()) {
    struct stat st {};
    if (::stat(file.c_str(), &st) != 0) throw std::runtime_error("cannot stat '" + file + "'");
    *when = static_cast<int64_t>(st.st_mtime);
    return;
  }
  json_error_t err;
  JsonPtr root(json_loadb(line.data(), line.size(), 0, &err));
  const json_t* t = root ? json_object_get(root.get(), "_pass_time") : nullptr;
  const json_t* f = root ? json_object_get(root.get(), "_family") : nullptr;
  if (!json_is_integer(t) || !json_is_string(f))
    throw std::runtime_error(file + ":1: no \"_pass_time\" and \"_family\": not a pass file of priority/mfprio");
  *when = static_cast<int64_t>(json_integer_value(t));
  *family = json_string_value(f);
}

bool is_dir(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

Options slurm_sprio_options(const Options& given) {
  Options o = given;
  if (o.conf.empty()) {
    const char* env = std::getenv("SLURM_CONF");
    o.conf = env && *env ? env : "/etc/slurm/slurm.conf";
  }
  const Conf conf = Conf::load(o.conf);
  const slurm_adapter::AdapterConf a = slurm_adapter::adapter_conf(conf, o.conf);
  std::string file = given.slurm_path;
  if (file.empty()) {
    const ConfPair* state = conf.find("StateSaveLocation");
    if (!state)
      throw std::runtime_error(o.conf + ": StateSaveLocation: missing, so the pass file is not known: give "
                               "sprio --slurm=FILE (priority/mfprio's " + kPassFile + ")");
    file = conf_relative_path(*state, state->value);
  }
  if (is_dir(file)) file += std::string("/") + kPassFile;
  int64_t when = 0;
  std::string family;
  read_pass_head(file, &when, &family);
  if (!family.empty() && family != a.family)
    throw std::runtime_error(file + ": written by family " + family + ", but " + where(a.params) + " names family=" +
                             a.family + " (slurmctld not restarted since the change?)");
  o.jobs_file = file;
  o.now = when;
  return o;
}

Conf slurm_family_conf(const std::string& path) {
  const slurm_adapter::AdapterConf a = slurm_adapter::adapter_conf(Conf::load(path), path);
  Conf out;
  for (const ConfPair& p : a.pairs)
    if (!iequals(p.key, "PluginDir")) out.add(p);  // Slurm's plugins, not mfprio's
  if (!a.plugin_dir.empty()) out.add(ConfPair{"PluginDir", a.plugin_dir, a.params.file, a.params.line});
  return out;
}

}  // namespace mfprio::host
