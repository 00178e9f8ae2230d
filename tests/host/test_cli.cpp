// test_cli.cpp - command-line parsing (cli.cpp), without running anything.
#include <gtest/gtest.h>

#include "cli.hpp"

using namespace mfprio::host;

namespace {

Options parse(std::vector<std::string> a) { return parse_cli(a); }

std::string error_of(std::vector<std::string> a) {
  try {
    parse_cli(a);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Cli, SprioWithGroupedFlags) {
  Options o = parse({"--conf", "c", "sprio", "--jobs=j.jsonl", "-lnw", "-u", "alice,bob", "-P", "--now", "100"});
  EXPECT_EQ(o.command, Command::Sprio);
  EXPECT_EQ(o.conf, "c");
  EXPECT_EQ(o.jobs_file, "j.jsonl");
  EXPECT_TRUE(o.long_format);
  EXPECT_TRUE(o.normalized);
  EXPECT_TRUE(o.weights);
  EXPECT_TRUE(o.parsable);
  EXPECT_EQ(o.users, (std::vector<std::string>{"alice", "bob"}));
  ASSERT_TRUE(o.now.has_value());
  EXPECT_EQ(*o.now, 100);
}

TEST(Cli, GlobalOptions) {
  Options o = parse({"--conf=c", "--plugin-dir", "/p", "-v", "--now", "2023-11-14T22:13:20Z", "info"});
  EXPECT_EQ(o.command, Command::Info);
  EXPECT_EQ(o.plugin_dir, "/p");
  EXPECT_TRUE(o.verbose);
  EXPECT_EQ(*o.now, 1700000000);
}

TEST(Cli, SshareAllUsers) {
  Options o = parse({"--conf", "c", "sshare", "-al", "--json"});
  EXPECT_TRUE(o.all_users);
  EXPECT_TRUE(o.long_format);
  EXPECT_TRUE(o.json);
}

TEST(Cli, DecayAndJobEnd) {
  Options d = parse({"--conf", "c", "decay", "--now", "5", "--running", "r.jsonl"});
  EXPECT_EQ(d.command, Command::Decay);
  EXPECT_EQ(d.jobs_file, "r.jsonl");
  Options e = parse({"--conf", "c", "job-end", "--job-file", "f", "--end", "9"});
  EXPECT_EQ(e.command, Command::JobEnd);
  EXPECT_EQ(*e.end, 9);
}

TEST(Cli, UsageErrors) {
  EXPECT_EQ(error_of({}), "no command given");
  EXPECT_EQ(error_of({"sprio", "--jobs", "j"}), "--conf FILE is required");
  EXPECT_EQ(error_of({"--conf", "c", "frobnicate"}), "unknown command 'frobnicate'");
  EXPECT_EQ(error_of({"--conf", "c", "--bogus", "info"}), "unknown option '--bogus'");
  EXPECT_EQ(error_of({"--conf", "c", "sprio"}), "sprio needs --jobs FILE");
  EXPECT_EQ(error_of({"--conf", "c", "sprio", "--jobs", "j", "-x"}), "unknown option '-x' for sprio");
  EXPECT_EQ(error_of({"--conf", "c", "sprio", "--jobs", "j", "-P", "--json"}), "-P and --json exclude each other");
  EXPECT_EQ(error_of({"--conf", "c", "sshare", "-n"}), "unknown option '-n' for sshare");
  EXPECT_EQ(error_of({"--conf", "c", "decay"}), "decay needs --now T");
  EXPECT_EQ(error_of({"--conf", "c", "job-end", "--job-file", "f"}), "job-end needs --job-file FILE and --end T");
  EXPECT_EQ(error_of({"--conf", "c", "info", "extra"}), "unexpected argument 'extra'");
  EXPECT_EQ(error_of({"--conf"}), "--conf needs a value");
  EXPECT_NE(error_of({"--conf", "c", "--now", "tomorrow", "info"}).find("--now: 'tomorrow' is not a time"),
            std::string::npos);
  EXPECT_EQ(error_of({"--conf", "c", "info", "--jobs", "x"}), "unknown option '--jobs'");
}

TEST(Cli, TimePoints) {
  int64_t t = 0;
  EXPECT_TRUE(parse_time_point("0", &t));
  EXPECT_EQ(t, 0);
  EXPECT_TRUE(parse_time_point("2024-01-01T00:00:00", &t));
  EXPECT_EQ(t, 1704067200);
  EXPECT_FALSE(parse_time_point("2024-13-01T00:00:00", &t));
  EXPECT_FALSE(parse_time_point("2024-01-01", &t));
  EXPECT_FALSE(parse_time_point("-5", &t));
  EXPECT_FALSE(parse_time_point("", &t));
}

}  // namespace
