// run_process.cpp - posix_spawn with stdout/stderr sent to temporary files
// (no pipe deadlocks), then waitpid.
#include "run_process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tempdir.hpp"
#include "test_util.hpp"

extern char** environ;

namespace mfprio::test {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& cwd) {
  const TempDir tmp;
  const std::string out_path = tmp.file("out"), err_path = tmp.file("err");

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  // posix_spawn has no portable chdir action: change and restore around it.
  std::filesystem::path old = std::filesystem::current_path();
  if (!cwd.empty()) std::filesystem::current_path(cwd);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ);
  if (!cwd.empty()) std::filesystem::current_path(old);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error("posix_spawn " + argv[0] + " failed");

  int st = 0;
  waitpid(pid, &st, 0);
  ProcessResult r;
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  return r;
}

ProcessResult run_host(std::vector<std::string> args, const std::string& cwd) {
  args.insert(args.begin(), env_or_die("MFPRIO_HOST_BIN"));
  return run_process(args, cwd);
}

ProcessResult run_acct(std::vector<std::string> args, const std::string& cwd) {
  args.insert(args.begin(), env_or_die("MFPRIO_ACCT_BIN"));
  return run_process(args, cwd);
}

std::string gridengine_sample_conf(const std::string& dir, const std::string& samples, const std::string& plugin_dir,
                                   const std::string& extra) {
  const std::string db = dir + "/ge.db", conf = dir + "/ge.conf";
  const ProcessResult r = run_acct({"--db", db, "import-sstree", samples + "/sstree"});
  if (r.status != 0) throw std::runtime_error("mfprio-acct import-sstree failed: " + r.err);
  std::ofstream(conf) << "PriorityType=priority/gridengine\nPriorityParameters=sched_conf=" << samples
                      << "/sched_conf,complexes=" << samples << "/complexes\nPluginDir=" << plugin_dir
                      << "\nAccountingStorageLoc=" << db << "\n" << extra;
  return conf;
}

}  // namespace mfprio::test
