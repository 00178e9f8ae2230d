// test_cli.cpp - command-line parsing (cli.cpp), without running anything.
#include <gtest/gtest.h>

#include <cctype>
#include <sstream>

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
  Options o = parse({"--conf", "c", "sprio", "--job-file=j.jsonl", "-lnw", "-u", "alice,bob", "-P", "--now", "100"});
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
  EXPECT_EQ(error_of({"sprio", "--job-file", "j"}), "--conf FILE is required");
  EXPECT_EQ(error_of({"--conf", "c", "frobnicate"}), "unknown command 'frobnicate'");
  EXPECT_EQ(error_of({"--conf", "c", "--bogus", "info"}), "unknown option '--bogus'");
  EXPECT_EQ(error_of({"--conf", "c", "sprio"}), "sprio needs --job-file FILE (the job feed; -j/--jobs filters job ids)");
  EXPECT_EQ(error_of({"--conf", "c", "sprio", "--job-file", "j", "-x"}), "unknown option '-x' for sprio");
  EXPECT_EQ(error_of({"--conf", "c", "sprio", "--job-file", "j", "-P", "--json"}), "-P and --json exclude each other");
  EXPECT_EQ(error_of({"--conf", "c", "sshare", "-w"}), "unknown option '-w' for sshare");
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

TEST(Cli, SimulateCollectsEveryConfTheGlobalOneFirst) {
  Options o = parse({"--conf", "g.conf", "simulate", "--swf", "t.swf", "--conf", "a.conf", "--conf=b.conf", "--procs",
                     "128", "--accounts", "acct.json", "--csv", "--plot", "o.svg", "--backfill", "none",
                     "--trace-decisions", "d.txt"});
  EXPECT_EQ(o.command, Command::Simulate);
  EXPECT_EQ(o.confs, (std::vector<std::string>{"g.conf", "a.conf", "b.conf"}));
  EXPECT_EQ(o.swf, "t.swf");
  EXPECT_EQ(o.procs, 128u);
  EXPECT_EQ(o.accounts, "acct.json");
  EXPECT_TRUE(o.csv);
  EXPECT_EQ(o.plot, "o.svg");
  EXPECT_TRUE(o.backfill_none);
  EXPECT_EQ(o.trace_decisions, "d.txt");
  o = parse({"simulate", "--swf", "t.swf", "--conf", "a.conf", "--json"});
  EXPECT_EQ(o.confs, (std::vector<std::string>{"a.conf"}));
  EXPECT_TRUE(o.json);
  EXPECT_FALSE(o.backfill_none);
}

TEST(Cli, ExplainTakesOneOrTwoJobIds) {
  Options o = parse({"--conf", "c", "explain", "--job-file", "j.jsonl", "7", "9", "--json", "--now", "100"});
  EXPECT_EQ(o.command, Command::Explain);
  EXPECT_EQ(o.explain_ids, (std::vector<uint64_t>{7, 9}));
  EXPECT_TRUE(o.json);
  EXPECT_EQ(*o.now, 100);
}

TEST(Cli, SimulateAndExplainUsageErrors) {
  auto usage_error = [](std::vector<std::string> a) {
    try {
      parse_cli(a);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(usage_error({"simulate", "--conf", "a"}), "simulate needs --swf FILE");
  EXPECT_EQ(usage_error({"simulate", "--swf", "t"}), "simulate needs at least one --conf FILE");
  EXPECT_EQ(usage_error({"simulate", "--swf", "t", "--conf", "a", "--procs", "0"}), "--procs: N must be at least 1");
  EXPECT_EQ(usage_error({"--conf", "c", "explain", "--job-file", "j", "1", "2", "3"}), "explain takes one or two job ids");
  EXPECT_EQ(usage_error({"--conf", "c", "explain", "1"}), "explain needs --job-file FILE");
}

}  // namespace

namespace {

TEST(Cli, SprioTakesSlurmsOptions) {
  Options o = parse({"--conf", "c", "sprio", "--job-file", "f.jsonl", "-j", "12,7", "--jobs=9", "-u", "ann",
                     "--users=bob", "-A", "physics", "-p", "gpu,cpu", "-o", "%.15i %Y", "-S", "-y,i", "-M", "x"});
  EXPECT_EQ(o.jobs_file, "f.jsonl");
  EXPECT_EQ(o.job_ids, (std::vector<uint64_t>{12, 7, 9}));
  EXPECT_EQ(o.users, (std::vector<std::string>{"ann", "bob"}));
  EXPECT_EQ(o.accounts_filter, (std::vector<std::string>{"physics"}));
  EXPECT_EQ(o.partitions, (std::vector<std::string>{"gpu", "cpu"}));
  EXPECT_TRUE(o.has_format);
  EXPECT_EQ(o.format, "%.15i %Y");
  EXPECT_EQ(o.sort, "-y,i");
  EXPECT_EQ(o.clusters, "x");
  // getopt forms: attached values, -j's optional argument attached, --opt VALUE.
  o = parse({"--conf", "c", "sprio", "--job-file", "f", "-j5", "-ualice", "--partition", "p1", "-hn"});
  EXPECT_EQ(o.job_ids, (std::vector<uint64_t>{5}));
  EXPECT_EQ(o.users, (std::vector<std::string>{"alice"}));
  EXPECT_EQ(o.partitions, (std::vector<std::string>{"p1"}));
  EXPECT_TRUE(o.noheader);
  EXPECT_TRUE(o.normalized);
  EXPECT_FALSE(o.long_format);
}

TEST(Cli, SprioJobsIsAFilterNotTheFeed) {
  EXPECT_EQ(error_of({"--conf", "c", "sprio", "--jobs", "f.jsonl"}),
            "--jobs: 'f.jsonl' is not a list of job ids (the job feed is --job-file FILE)");
  EXPECT_EQ(error_of({"--conf", "c", "sprio", "--job-file", "f", "-j", "x1"}),
            "-j: 'x1' is not a list of job ids (the job feed is --job-file FILE)");
  // Alone, -j filters nothing (Slurm's optional argument).
  EXPECT_TRUE(parse({"--conf", "c", "sprio", "-j", "--job-file", "f"}).job_ids.empty());
  EXPECT_EQ(error_of({"--conf", "c", "sprio", "-j", "12"}),
            "sprio needs --job-file FILE (the job feed; -j/--jobs filters job ids)");
  EXPECT_EQ(error_of({"--conf", "c", "sprio", "--job-file", "f", "-l", "-o", "%i"}),
            "-o/--format and -l/--long exclude each other (as in Slurm's sprio)");
  EXPECT_EQ(error_of({"--conf", "c", "sprio", "--job-file", "f", "-u"}), "-u needs a value");
}

TEST(Cli, SshareTakesSlurmsOptions) {
  Options o = parse({"--conf", "c", "sshare", "-A", "physics,chem", "-u", "ann", "-U", "-m", "-l", "-n", "-P",
                     "-o", "Account,User,RawUsage%20"});
  EXPECT_EQ(o.accounts_filter, (std::vector<std::string>{"physics", "chem"}));
  EXPECT_EQ(o.users, (std::vector<std::string>{"ann"}));
  EXPECT_TRUE(o.users_only);
  EXPECT_TRUE(o.share_partitions);
  EXPECT_TRUE(o.long_format);
  EXPECT_TRUE(o.noheader);
  EXPECT_TRUE(o.parsable);
  EXPECT_TRUE(o.parsable_no_ending);
  EXPECT_EQ(o.format, "Account,User,RawUsage%20");
  o = parse({"--conf", "c", "sshare", "--parsable", "--users=-1", "-h"});
  EXPECT_TRUE(o.parsable);
  EXPECT_FALSE(o.parsable_no_ending);
  EXPECT_TRUE(o.all_users);  // Slurm: -u -1 is every user
  EXPECT_TRUE(o.noheader);
  o = parse({"sshare", "-e"});  // the field list needs no conf
  EXPECT_TRUE(o.helpformat);
}

TEST(Cli, EveryCommandHasHelpAndTheProgramAVersion) {
  for (const char* cmd : {"sprio", "sshare", "decay", "job-end", "info", "replay", "simulate", "explain"}) {
    Options o = parse({cmd, "--help"});
    EXPECT_TRUE(o.command_help) << cmd;
    EXPECT_NE(std::string(command_usage(o.command)).find(std::string(cmd)), std::string::npos) << cmd;
  }
  // --help is never taken as an argument, wherever it stands.
  Options o = parse({"--conf", "c", "sprio", "--job-file", "--help"});
  EXPECT_TRUE(o.command_help);
  EXPECT_TRUE(parse({"--version"}).version);
  EXPECT_TRUE(parse({"--conf", "c", "sprio", "-V"}).version);
}

}  // namespace

// `COMMAND --help` describes every option its usage names (it used
// to print only the usage line for decay, job-end, replay, simulate and
// explain): each "--option" of the usage lines starts a described line.
TEST(Cli, EveryCommandHelpDescribesEveryOptionOfItsUsage) {
  using mfprio::host::Command;
  using mfprio::host::command_usage;
  for (Command c : {Command::Sprio, Command::Sshare, Command::Decay, Command::JobEnd, Command::Info, Command::Replay,
                    Command::Simulate, Command::Explain}) {
    const std::string help = command_usage(c);
    std::istringstream in(help);
    std::string line, usage, described;
    while (std::getline(in, line)) {
      if (line.rfind("usage:", 0) == 0 || line.rfind("       ", 0) == 0) usage += line + "\n";
      else if (line.rfind("  -", 0) == 0) described += line + "\n";
    }
    size_t options = 0;
    for (size_t at = usage.find("--"); at != std::string::npos; at = usage.find("--", at + 2)) {
      size_t end = at + 2;
      while (end < usage.size() && (std::isalnum(static_cast<unsigned char>(usage[end])) || usage[end] == '-')) ++end;
      const std::string opt = usage.substr(at, end - at);
      if (opt == "--conf" && c != Command::Simulate) continue;  // the global option
      ++options;
      EXPECT_NE(described.find(opt), std::string::npos) << "'" << opt << "' has no line in:\n" << help;
    }
    (void)options;
    if (c != Command::Info) {
      EXPECT_FALSE(described.empty()) << help;
    }
  }
}
