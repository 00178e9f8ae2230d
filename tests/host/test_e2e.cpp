// test_e2e.cpp - the built mfprio-host binary, run as a child process
// (MFPRIO_HOST_BIN), against the fixture plugins (MFPRIO_FIXTURE_PLUGINDIR)
// and, when built, the real priority_basic.so (MFPRIO_PLUGIN_BUILDDIR).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include <jansson.h>

#include "json_util.hpp"
#include "mfprio/mfprio.h"
#include "run_process.hpp"
#include "test_util.hpp"

using mfprio::test::ProcessResult;
using mfprio::test::run_process;
using mfprio::test::TempDir;

namespace {

using mfprio::test::fields;
using mfprio::test::lines;

std::string fixture_dir() { return mfprio::test::env_or_die("MFPRIO_FIXTURE_PLUGINDIR"); }

using mfprio::test::has;

// The JOBID column of a sprio table: the first field of each line after the header.
std::vector<std::string> job_ids(const std::string& out) {
  std::vector<std::string> ids;
  const std::vector<std::string> l = lines(out);
  for (size_t i = 1; i < l.size(); ++i) {
    const std::vector<std::string> f = fields(l[i]);
    ids.push_back(f.empty() ? "" : f[0]);
  }
  return ids;
}

constexpr const char* kNow = "1700043200";  // 1700000000 + 12 h: age factor 0.5 for the jobs below

class HostE2E : public testing::Test {
 protected:
  // A conf for the fake plugin: 2 nodes x 32 CPUs, 8 GPUs.
  std::string fake_conf(const std::string& extra = "") {
    return dir.write("slurm.conf", "PriorityType=priority/fake\nPluginDir=" + fixture_dir() +
                                       "\nNodeName=n[1-2] CPUs=32 RealMemory=1000 Gres=gpu:4\n" + extra);
  }
  ProcessResult host(std::vector<std::string> args) { return mfprio::test::run_host(std::move(args)); }
  // `mfprio-host --conf <conf> --now kNow sprio --job-file <jobs>`, then `opts`.
  ProcessResult sprio(const std::string& conf, const std::string& jobs, const std::vector<std::string>& opts = {}) {
    std::vector<std::string> args = {"--conf", conf, "--now", kNow, "sprio", "--job-file", jobs};
    args.insert(args.end(), opts.begin(), opts.end());
    return host(args);
  }
  TempDir dir;
};

const char* kJobs =
    R"({"id": 3, "user": "alice", "account": "physics", "partition": "batch", "qos": "high", "submit": 1700000000, "cpus": 32})"
    "\n"
    R"({"id": 1, "user": "bob", "account": "chem", "partition": "a,high", "submit": 1700000000, "cpus": 64, "gres": "gpu:2", "nice": 10})"
    "\n"
    R"({"id": 2, "user": "carol", "partition": ["x", "y"], "submit": 1700000000, "site_factor": 5})"
    "\n"
    R"({"id": 4, "user": "alice", "state": "running", "submit": 1700000000, "start": 1700000100})"
    "\n";

TEST_F(HostE2E, SprioPrintsFactorsOneRowPerPartitionInJobIdOrder) {
  const std::string conf = fake_conf();
  const std::string jobs = dir.write("jobs.jsonl", kJobs);
  ProcessResult r = sprio(conf, jobs);
  ASSERT_EQ(r.status, 0) << r.err;
  auto l = lines(r.out);
  ASSERT_EQ(l.size(), 6u) << r.out;  // header + 5 records; the running job is not shown
  EXPECT_EQ(fields(l[0])[0], "JOBID");
  // job 1 in a: age 500 + fs 250 + jobsize 100 (64/64 CPUs) + part 100 + gpu 2/8*1000=250 - nice 10 = 1190
  EXPECT_EQ(fields(l[1]), (std::vector<std::string>{"1", "a", "1190", "0", "500", "0", "250", "100", "100", "0",
                                                    "gres/gpu=250"}));
  EXPECT_EQ(fields(l[2])[1], "high");
  EXPECT_EQ(fields(l[2])[2], "1290");  // partition "high": factor 1.0 -> 200
  EXPECT_EQ(fields(l[3]), (std::vector<std::string>{"2", "x", "856", "5", "500", "0", "250", "2", "100", "0"}));
  EXPECT_EQ(fields(l[4])[1], "y");
  // job 3: 500 + 250 + 50 + 100 + qos 300 = 1200
  EXPECT_EQ(fields(l[5]), (std::vector<std::string>{"3", "batch", "1200", "0", "500", "0", "250", "50", "100", "300"}));
  EXPECT_EQ(r.err, "mfprio-host: plugin warning: fake warning: this is a test plugin\n");
}

TEST_F(HostE2E, SprioResolvesOncePerRecordAndCallsFini) {
  const std::string conf = fake_conf();
  const std::string jobs = dir.write("jobs.jsonl", kJobs);
  ProcessResult r = host({"--conf", conf, "--verbose", "--now", kNow, "sprio", "--job-file", jobs});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.err, "loaded priority/fake (fake priority plugin (host tests)) from " + fixture_dir())) << r.err;
  // The conf's 6 pairs and MfprioCreateStore=no (sprio is a view: it never creates a store).
  EXPECT_TRUE(has(r.err, "plugin info: fake init: 7 conf pairs, 2 nodes, 64 cpus")) << r.err;
  EXPECT_TRUE(has(r.err, "plugin debug: fake debug: clock 1700043200")) << r.err;
  EXPECT_TRUE(has(r.err, "plugin info: fake fini: resolves=5 factors=5")) << r.err;
}

TEST_F(HostE2E, SprioLongNormalizedUserFilterAndAllStates) {
  const std::string conf = fake_conf();
  const std::string jobs = dir.write("jobs.jsonl", kJobs);
  ProcessResult r = host({"--conf", conf, "sprio", "--now", kNow, "--job-file", jobs, "-ln", "-u", "alice", "--all-states"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto l = lines(r.out);
  ASSERT_EQ(l.size(), 3u) << r.out;
  EXPECT_EQ(fields(l[0])[2], "USER");
  EXPECT_EQ(fields(l[1]), (std::vector<std::string>{"3", "batch", "alice", "physics", "0.0000003", "0", "0.5000000",
                                                    "0.0000000", "0.5000000", "0.5000000", "0.5000000", "high",
                                                    "1.0000000", "0"}));
  EXPECT_EQ(fields(l[2])[0], "4");  // running, shown with --all-states
}

TEST_F(HostE2E, SprioParsableAndWeights) {
  const std::string conf = fake_conf();
  const std::string jobs = dir.write("jobs.jsonl", kJobs);
  ProcessResult r = host({"--conf", conf, "sprio", "--now", kNow, "--job-file", jobs, "-w", "-P", "-u", "carol"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto l = lines(r.out);
  ASSERT_EQ(l.size(), 4u) << r.out;
  EXPECT_EQ(l[0], "JOBID|PARTITION|PRIORITY|SITE|AGE|ASSOC|FAIRSHARE|JOBSIZE|PARTITION|QOS|TRES|");
  EXPECT_EQ(l[1], "Weights||||1000|0|500|100|200|300|GRES/gpu=1000|");
  EXPECT_EQ(l[2], "2|x|856|5|500|0|250|2|100|0||");
}

TEST_F(HostE2E, SprioJsonIsAnArrayOfThePluginsObjects) {
  const std::string conf = fake_conf();
  const std::string jobs = dir.write("jobs.jsonl", kJobs);
  ProcessResult r = host({"--conf", conf, "sprio", "--now", kNow, "--job-file", jobs, "--json", "-u", "bob"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.front(), '[');
  EXPECT_TRUE(has(r.out, "\"priority\": 1190")) << r.out;
  EXPECT_TRUE(has(r.out, "\"priority\": 1290")) << r.out;
  EXPECT_TRUE(has(r.out, "\"job_id\": 1")) << r.out;
  EXPECT_TRUE(has(r.out, "\"partition\": \"high\"")) << r.out;
  EXPECT_TRUE(has(r.out, "\"user\": \"bob\"")) << r.out;
  EXPECT_FALSE(has(r.out, "alice"));
}

TEST_F(HostE2E, MalformedJsonLineIsNamedOtherJobsStillPrintedExitNonZero) {
  const std::string conf = fake_conf();
  const std::string jobs = dir.write("bad.jsonl",
                                     "{\"id\": 1, \"user\": \"a\", \"submit\": 1700000000}\n"
                                     "{\"id\": 2, \"user\": \n"
                                     "{\"id\": 3, \"user\": \"c\", \"cpus\": \"four\"}\n"
                                     "{\"id\": 5, \"user\": \"e\", \"submit\": 1700000000}\n");
  ProcessResult r = sprio(conf, jobs);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(job_ids(r.out), (std::vector<std::string>{"1", "5"})) << r.out;
  EXPECT_TRUE(has(r.err, "mfprio-host: " + jobs + ":2: invalid JSON")) << r.err;
  EXPECT_TRUE(has(r.err, "mfprio-host: " + jobs + ":3: field 'cpus': expected an integer, got a string")) << r.err;
}

TEST_F(HostE2E, FailingPluginCallPrintsErrmsgAndOtherJobsStillPrinted) {
  const std::string conf = fake_conf();
  const std::string jobs = dir.write("ghost.jsonl",
                                     "{\"id\": 1, \"user\": \"a\"}\n"
                                     "{\"id\": 2, \"user\": \"ghost\", \"partition\": \"p\"}\n"
                                     "{\"id\": 3, \"user\": \"b\", \"nice\": -5}\n"
                                     "{\"id\": 4, \"user\": \"b\", \"nice\": -5, \"nice_admin\": true}\n");
  ProcessResult r = sprio(conf, jobs);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(job_ids(r.out), (std::vector<std::string>{"1", "4"})) << r.out;
  // The plugin's message already starts "job N: "; the host names the job once.
  EXPECT_TRUE(has(r.err, jobs + ":2: job 2 (partition p): unknown user 'ghost' (ENOENT)\n")) << r.err;
  EXPECT_TRUE(has(r.err, jobs + ":3: job 3: negative nice -5 needs an admin (EPERM)\n")) << r.err;
  EXPECT_FALSE(has(r.err, "job 3: job 3")) << r.err;
}

TEST_F(HostE2E, MissingConf) {
  ProcessResult r = host({"--conf", dir.path() + "/none.conf", "info"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "mfprio-host: cannot open conf file '" + dir.path() + "/none.conf': No such file or directory\n");
  EXPECT_EQ(r.out, "");
}

TEST_F(HostE2E, ConfSyntaxErrorNamesFileAndLine) {
  const std::string conf = dir.write("bad.conf", "PriorityType=priority/fake\n\nthis is wrong\n");
  ProcessResult r = host({"--conf", conf, "info"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "mfprio-host: " + conf + ":3: expected Key=Value, found 'this'\n");
}

TEST_F(HostE2E, BadHostKeyValueNamesFileLineAndKey) {
  const std::string inc = dir.write("cluster.conf", "ClusterNodes=4\nClusterCPUs=lots\n");
  const std::string conf = fake_conf("Include cluster.conf\n");
  ProcessResult r = host({"--conf", conf, "info"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "mfprio-host: " + inc + ":2: ClusterCPUs: 'lots' is not an unsigned integer (0..4294967295)\n");
  const std::string conf2 = dir.write("t.conf", "A=1\nPriorityType=multifactor\n");
  r = host({"--conf", conf2, "info"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.err, conf2 + ":2: PriorityType: 'multifactor' is not a plugin type")) << r.err;
}

TEST_F(HostE2E, PluginNotFoundNamesEveryDirectory) {
  const std::string conf = dir.write("c.conf", "PriorityType=priority/fake\nPluginDir=/nope/one:/nope/two\n");
  ProcessResult r = host({"--conf", conf, "info"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "mfprio-host: plugin priority/fake not found: no priority_fake.so in /nope/one, /nope/two (PluginDir)\n");
}

TEST_F(HostE2E, DefaultTypeIsMultifactorAndPluginDirOptionOverrides) {
  const std::string conf = dir.write("c.conf", "PluginDir=/nope\n");
  ProcessResult r = host({"--conf", conf, "--plugin-dir", "/also/not:/here", "info"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "mfprio-host: plugin priority/multifactor not found: no priority_multifactor.so in /also/not, /here "
            "(PluginDir)\n");
}

TEST_F(HostE2E, MissingSymbolNamesFileAndSymbol) {
  const std::string conf = dir.write("c.conf", "PriorityType=priority/nosym\nPluginDir=" + fixture_dir() + "\n");
  ProcessResult r = host({"--conf", conf, "info"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "mfprio-host: " + fixture_dir() + "/priority_nosym.so: plugin is corrupted: missing required symbol 'decay'\n");
}

TEST_F(HostE2E, AbiMismatchNamesFileAndVersion) {
  const std::string conf = dir.write("c.conf", "PriorityType=priority/badver\nPluginDir=" + fixture_dir() + "\n");
  ProcessResult r = host({"--conf", conf, "info"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "mfprio-host: " + fixture_dir() +
                       "/priority_badver.so: plugin_version 99 does not match the host's ABI version 2\n");
}

TEST_F(HostE2E, InitFailurePrintsThePluginsMessage) {
  const std::string conf = fake_conf("FakeInitFail=yes\n");
  ProcessResult r = host({"--conf", conf, "info"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.err, "init failed: " + conf + ":4: FakeInitFail: init refused on request (ECONF)")) << r.err;
}

TEST_F(HostE2E, BadArgumentsGiveUsageAndExit2) {
  ProcessResult r = host({"--conf", "x", "sprio", "--job-file", "j", "--bogus"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "mfprio-host: unknown option '--bogus' for sprio\nusage: mfprio-host --conf FILE")) << r.err;
  r = host({});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "usage:"));
  r = host({"--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(has(r.out, "usage:"));
}

TEST_F(HostE2E, MissingJobFileIsAnErrorBeforeLoading) {
  const std::string conf = fake_conf();
  ProcessResult r = host({"--conf", conf, "sprio", "--job-file", dir.path() + "/nojobs.jsonl"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "mfprio-host: cannot read job file '" + dir.path() + "/nojobs.jsonl'\n");
}

TEST_F(HostE2E, InfoShowsHostTable) {
  const std::string conf = fake_conf("ClusterTRES=gres/gpu=16\n");
  ProcessResult r = host({"--conf", conf, "--now", "123", "info"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "\"clock\": 123")) << r.out;
  EXPECT_TRUE(has(r.out, "\"cluster_nodes\": 2")) << r.out;
  EXPECT_TRUE(has(r.out, "\"cluster_cpus\": 64")) << r.out;
  EXPECT_TRUE(has(r.out, "\"cluster_mem_mb\": 2000")) << r.out;
  EXPECT_TRUE(has(r.out, "\"gres/gpu\": 16")) << r.out;  // ClusterTRES overrides the node lines' 8
  EXPECT_TRUE(has(r.out, "\"key\": \"ClusterTRES\"")) << r.out;
}

TEST_F(HostE2E, SshareWithoutAllShowsAccountsOnly) {
  const std::string conf = fake_conf();
  ProcessResult r = host({"--conf", conf, "sshare", "-u", "nobody-here"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto l = lines(r.out);
  ASSERT_EQ(l.size(), 5u) << r.out;  // header, dashes, root, physics, chem
  EXPECT_EQ(fields(l[0]), (std::vector<std::string>{"Account", "User", "RawShares", "NormShares", "RawUsage",
                                                    "EffectvUsage", "FairShare"}));
  EXPECT_EQ(l[2].substr(0, 5), "root ");
  EXPECT_EQ(l[3].substr(0, 9), " physics ");
  EXPECT_EQ(l[4].substr(0, 6), " chem ");
}

TEST_F(HostE2E, SshareAllLongParsable) {
  const std::string conf = fake_conf();
  ProcessResult r = host({"--conf", conf, "sshare", "-a", "-l", "-p"});  // -p: '|' after the last field too
  ASSERT_EQ(r.status, 0) << r.err;
  auto l = lines(r.out);
  ASSERT_EQ(l.size(), 7u) << r.out;
  EXPECT_EQ(l[0],
            "Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|LevelFS|GrpTRESMins|"
            "TRESRunMins|");
  EXPECT_EQ(l[1], "root|||1.000000|1000|1.000000|1.000000|||||");
  EXPECT_EQ(l[3], "  physics|alice|1|1.000000|600|0.600000|0.600000|0.500000|1.666667|||");
  EXPECT_EQ(l[4], "  physics|bob|parent|1.000000|0|0.000000|0.600000|1.000000|inf|||");
  EXPECT_EQ(l[6], "  chem|carol|1|1.000000|401|0.400000|0.400000|0.750000|1.000000|||");
}

TEST_F(HostE2E, SshareUserFilterAndJson) {
  const std::string conf = fake_conf();
  ProcessResult r = host({"--conf", conf, "sshare", "-u", "carol", "-P"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "|carol|"));
  EXPECT_FALSE(has(r.out, "|alice|"));
  r = host({"--conf", conf, "sshare", "--json", "-u", "alice"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "\"alice\""));
  EXPECT_FALSE(has(r.out, "\"carol\""));
  EXPECT_TRUE(has(r.out, "\"chem\""));
}

TEST_F(HostE2E, DecayPassesResolvedRunningJobs) {
  const std::string conf = fake_conf();
  const std::string running = dir.write("run.jsonl",
                                        "{\"id\": 7, \"user\": \"a\", \"state\": \"running\", \"start\": 10}\n"
                                        "{\"id\": 8, \"user\": \"b\", \"state\": \"running\", \"start\": 10}\n");
  ProcessResult r = host({"--conf", conf, "decay", "--now", "1700000000", "--running", running});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "decay: now=1700000000 running=2 generation=2 last_decay=1700000000 associations=6 jobs_charged=2 "
            "clamped_high=0 clamped_low=0\n");
  r = host({"--conf", conf, "decay", "--now", "5"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "running=0 generation=2"));
}

TEST_F(HostE2E, DecayRunsOnNothingWhenAJobIsBad) {
  const std::string conf = fake_conf();
  const std::string running = dir.write("run.jsonl",
                                        "{\"id\": 7, \"user\": \"a\", \"state\": \"running\"}\n"
                                        "{\"id\": 8, \"user\": \"ghost\", \"state\": \"running\"}\n");
  ProcessResult r = host({"--conf", conf, "decay", "--now", "100", "--running", running});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(has(r.err, running + ":2: job 8: unknown user 'ghost' (ENOENT)\n")) << r.err;
  EXPECT_TRUE(has(r.err, "decay not run")) << r.err;
  const std::string multi = dir.write("multi.jsonl", "{\"id\": 7, \"user\": \"a\", \"partition\": \"p,q\"}\n");
  r = host({"--conf", conf, "decay", "--now", "100", "--running", multi});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.err, multi + ":1: job 7: a running or finished job runs in one partition, not 2")) << r.err;
}

TEST_F(HostE2E, JobEndChargesAllRecordsInOneBatchOrNone) {
  const std::string conf = fake_conf();
  const std::string done = dir.write("done.jsonl",
                                     "{\"id\": 7, \"user\": \"a\", \"state\": \"completed\", \"start\": 10}\n"
                                     "{\"id\": 8, \"user\": \"b\", \"state\": \"completed\", \"start\": 500}\n");
  ProcessResult r = host({"--conf", conf, "job-end", "--job-file", done, "--end", "1000"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "job-end: end=1000 jobs=2/2 generation=1")) << r.out;
  EXPECT_TRUE(has(r.out, "jobs_charged=2")) << r.out;
  // job 8 ends before it starts: job_end_batch charges all records or none (ABI v2).
  r = host({"--conf", conf, "job-end", "--job-file", done, "--end", "100"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.out, "jobs=0/2")) << r.out;
  EXPECT_TRUE(has(r.out, "jobs_charged=0")) << r.out;
  EXPECT_TRUE(has(r.err, done + ":2: job 8: job_end_batch: end 100 is before start 500 (EINVAL)\n")) << r.err;
  EXPECT_TRUE(has(r.err, "nothing was charged")) << r.err;
}

// ---- ABI v2: prioritize, optional operations, refused plugins --------------

TEST_F(HostE2E, SprioPricesTheQueueWithTheRunningJobsFirst) {
  const std::string conf = fake_conf();
  const std::string jobs = dir.write("jobs.jsonl", kJobs);
  // -u hides jobs from the view, not from the queue the plugin prices.
  ProcessResult r = host({"--conf", conf, "--verbose", "--now", kNow, "sprio", "--job-file", jobs, "-u", "carol"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.err, "plugin info: fake prioritize: 5 pending, 1 running\n")) << r.err;
  EXPECT_TRUE(has(r.err, "fake fini: resolves=2 factors=2 prioritize=1")) << r.err;
  EXPECT_EQ(lines(r.out).size(), 3u) << r.out;  // header + carol's two partitions; the running job is not listed
}

TEST_F(HostE2E, SprioWithoutJobsPrintsTheHeaderThePluginDescribes) {
  const std::string conf = fake_conf();
  const std::string none = dir.write("none.jsonl", "\n");
  ProcessResult r = host({"--conf", conf, "sprio", "--job-file", none, "-l", "-P"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "JOBID|PARTITION|USER|ACCOUNT|PRIORITY|SITE|AGE|ASSOC|FAIRSHARE|JOBSIZE|PARTITION|QOSNAME|QOS|NICE|TRES|\n");
}

TEST_F(HostE2E, SshareJsonKeepsColumnsAndRenumbersParents) {
  const std::string conf = fake_conf();
  ProcessResult r = host({"--conf", conf, "sshare", "--json", "-u", "carol"});
  ASSERT_EQ(r.status, 0) << r.err;
  json_error_t err;
  mfprio::host::JsonPtr doc(json_loads(r.out.c_str(), 0, &err));
  ASSERT_TRUE(doc) << r.out;
  EXPECT_EQ(json_array_size(json_object_get(doc.get(), "columns")), 11u);
  const json_t* rows = json_object_get(doc.get(), "rows");
  ASSERT_EQ(json_array_size(rows), 4u) << r.out;  // root, physics, chem, carol
  EXPECT_STREQ(json_string_value(json_object_get(json_array_get(rows, 3), "user")), "carol");
  EXPECT_EQ(json_integer_value(json_object_get(json_array_get(rows, 3), "parent")), 2);  // chem, now row 2
  EXPECT_EQ(json_integer_value(json_object_get(json_array_get(rows, 2), "parent")), 0);
}

class OptionalOpsE2E : public HostE2E {
 protected:
  std::string noopt_conf() {
    return dir.write("noopt.conf", "PriorityType=priority/noopt\nPluginDir=" + fixture_dir() +
                                       "\nNodeName=n[1-2] CPUs=32 RealMemory=1000 Gres=gpu:4\n");
  }
};

TEST_F(OptionalOpsE2E, SprioPrintsPrioritiesOnlyAndSaysSoOnce) {
  const std::string jobs = dir.write("jobs.jsonl", kJobs);
  ProcessResult r = sprio(noopt_conf(), jobs, {"-P"});
  ASSERT_EQ(r.status, 0) << r.err;
  // The same priorities as through job_factors, from set_priority one by one.
  EXPECT_EQ(r.out,
            "JOBID|PARTITION|PRIORITY|\n"
            "1|a|1190|\n"
            "1|high|1290|\n"
            "2|x|856|\n"
            "2|y|856|\n"
            "3|batch|1200|\n");
  EXPECT_EQ(r.err,
            "mfprio-host: plugin warning: fake warning: this is a test plugin\n"
            "mfprio-host: note: priority/noopt provides no job_factors: sprio shows JOBID PARTITION PRIORITY only\n");
  r = sprio(noopt_conf(), jobs, {"-l", "-u", "alice"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(fields(lines(r.out).at(0)), (std::vector<std::string>{"JOBID", "PARTITION", "USER", "ACCOUNT", "PRIORITY"}));
  EXPECT_EQ(fields(lines(r.out).at(1)), (std::vector<std::string>{"3", "batch", "alice", "physics", "1200"}));
}

TEST_F(OptionalOpsE2E, SprioErrorsStillNameTheRecord) {
  const std::string jobs = dir.write("ghost.jsonl",
                                     "{\"id\": 1, \"user\": \"a\"}\n"
                                     "{\"id\": 2, \"user\": \"ghost\", \"partition\": \"p\"}\n");
  ProcessResult r = sprio(noopt_conf(), jobs, {"-P", "-h"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "1||351|\n");  // fair share 250 + partition 100 + 1 of 64 CPUs x 100
  EXPECT_TRUE(has(r.err, jobs + ":2: job 2 (partition p): unknown user 'ghost' (ENOENT)\n")) << r.err;
}

TEST_F(OptionalOpsE2E, SprioJsonAndWeightsWithoutTheirOperations) {
  const std::string jobs = dir.write("jobs.jsonl", kJobs);
  ProcessResult r = sprio(noopt_conf(), jobs, {"--json", "-u", "bob"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "\"priority\": 1190")) << r.out;
  EXPECT_TRUE(has(r.out, "\"partition\": \"high\"")) << r.out;
  EXPECT_TRUE(has(r.err, "provides no job_factors_json")) << r.err;
  r = host({"--conf", noopt_conf(), "sprio", "-w", "-P"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "JOBID|PARTITION|PRIORITY|\nWeights|||\n");
  EXPECT_TRUE(has(r.err, "plugin_info_json has no weights")) << r.err;
}

TEST_F(OptionalOpsE2E, DecayStillRuns) {
  const std::string running = dir.write("run.jsonl", "{\"id\": 7, \"user\": \"a\", \"state\": \"running\", \"start\": 10}\n");
  ProcessResult r = host({"--conf", noopt_conf(), "decay", "--now", "1700000000", "--running", running});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "decay: now=1700000000 running=1\n");
}

TEST_F(OptionalOpsE2E, SshareSaysTheFamilyHasNoShareView) {
  ProcessResult r = host({"--conf", noopt_conf(), "sshare", "-a"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(has(r.err, "mfprio-host: sshare: priority/noopt has no share view (the plugin provides no share_table)\n"))
      << r.err;
  r = host({"--conf", noopt_conf(), "sshare", "--json"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.err, "has no share view")) << r.err;
}

TEST_F(OptionalOpsE2E, JobEndReportsThatTheFamilyChargesNoUsage) {
  const std::string done = dir.write("done.jsonl", "{\"id\": 7, \"user\": \"a\", \"state\": \"completed\", \"start\": 10}\n");
  ProcessResult r = host({"--conf", noopt_conf(), "job-end", "--job-file", done, "--end", "1000"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "job-end: end=1000 jobs=0/1: priority/noopt charges no usage at job end (no job_end or job_end_batch)\n");
}

TEST_F(OptionalOpsE2E, InfoShowsTheIdentity) {
  ProcessResult r = host({"--conf", noopt_conf(), "info"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "\"plugin_type\": \"priority/noopt\"")) << r.out;
  EXPECT_TRUE(has(r.out, "\"abi_version\": 2")) << r.out;
}

TEST_F(HostE2E, V1PluginIsRefusedWithARebuildMessage) {
  const std::string conf = dir.write("c.conf", "PriorityType=priority/v1\nPluginDir=" + fixture_dir() + "\n");
  ProcessResult r = host({"--conf", conf, "info"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "mfprio-host: " + fixture_dir() +
                       "/priority_v1.so: built for mfprio ABI v1; this host speaks ABI v2: rebuild the plugin against "
                       "mfprio.h v2\n");
}

TEST_F(HostE2E, JsonOperationsWithoutFreeStringAreRefused) {
  const std::string conf = dir.write("c.conf", "PriorityType=priority/nofree\nPluginDir=" + fixture_dir() + "\n");
  ProcessResult r = host({"--conf", conf, "info"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.err, "/priority_nofree.so: plugin is corrupted: it provides 'job_factors_json' but not 'free_string'"))
      << r.err;
}

TEST_F(HostE2E, JobFileV2KeysReachThePlugin) {
  const std::string conf = fake_conf();
  const std::string jobs = dir.write("v2.jsonl",
                                     "{\"id\": 1, \"user\": \"a\", \"queue\": \"high\", \"bank\": \"b1\", "
                                     "\"urgency\": 31, \"attrs\": {\"x\": 1}}\n"
                                     "{\"id\": 2, \"user\": \"a\", \"urgency\": 40}\n");
  ProcessResult r = sprio(conf, jobs, {"-l", "-P", "-h"});
  EXPECT_EQ(r.status, 1);
  auto l = lines(r.out);
  ASSERT_EQ(l.size(), 1u) << r.out;
  EXPECT_EQ(l[0].substr(0, 12), "1|high|a|b1|");
  EXPECT_TRUE(has(r.err, jobs + ":2: field 'urgency': 40 is out of range 0..31")) << r.err;
}

TEST_F(HostE2E, ReplayPricesWithWhatThePluginProvides) {
  const std::string swf = dir.write("t.swf",
                                    "; MaxProcs: 64\n"
                                    "1 0 10 100 4 -1 -1 4 200 -1 1 1 1 -1 1 1 -1 -1\n"
                                    "2 5 100 50 8 -1 -1 8 100 -1 1 2 1 -1 1 1 -1 -1\n");
  ProcessResult r = host({"--conf", fake_conf(), "replay", "--swf", swf, "--calc-period", "1"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "replay: pending jobs priced: 2 (prioritize once per pass; at most 1 pending, 1 running)\n"))
      << r.out;
  EXPECT_TRUE(has(r.out, "replay: root raw usage (charged, decayed): 1000.400 ")) << r.out;
  EXPECT_TRUE(has(r.out, "\n             Account       User  RawShares")) << r.out;
  const std::string noopt = dir.write("noopt.conf", "PriorityType=priority/noopt\nPluginDir=" + fixture_dir() + "\n");
  r = host({"--conf", noopt, "replay", "--swf", swf, "--calc-period", "1"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "replay: pending jobs priced: 2 (set_priority once per pass;")) << r.out;
  EXPECT_TRUE(has(r.out, "replay: root raw usage: none (priority/noopt has no share table with raw_usage)\n")) << r.out;
  EXPECT_FALSE(has(r.out, "Account")) << r.out;
}

// ---- the plain-C99 host (tests/abi/abi_host.c) on the fixtures ------------

class AbiHostE2E : public HostE2E {
 protected:
  ProcessResult abi_host(std::vector<std::string> args) {
    args.insert(args.begin(), mfprio::test::env_or_die("MFPRIO_ABI_HOST"));
    return run_process(args);
  }
  std::string so(const std::string& name) { return fixture_dir() + "/priority_" + name + ".so"; }
  // id user account partition qos submit eligible nodes cpus mem_mb time_limit_min nice
  std::string jobs_txt() {
    return dir.write("jobs.txt",
                     "3 alice physics batch high 1700000000 1700000000 1 32 0 0 0\n"
                     "1 bob chem high - 1700000000 1700000000 1 60 0 0 10\n");
  }
};

TEST_F(AbiHostE2E, PrintsPrioritiesWithOrWithoutOptionalOps) {
  const std::string kv = dir.write("c.kv", "PriorityWeightAge=1\n");
  // abi_host's cluster: 240 CPUs.  job 3: 500 + 250 + 100*32/240 + 100 + 300 = 1163
  ProcessResult r = abi_host({so("fake"), kv, jobs_txt(), kNow});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "3 batch 1163\n1 high 965\n");
  r = abi_host({so("noopt"), kv, jobs_txt(), kNow});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "3 batch 1163\n1 high 965\n");
  r = abi_host({so("v1"), kv, jobs_txt(), kNow});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.err, "ABI 1, host 2")) << r.err;
  r = abi_host({so("nosym"), kv, jobs_txt(), kNow});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.err, "missing required symbol decay")) << r.err;
}

TEST_F(AbiHostE2E, DescribesTermsAndShareColumnsGenerically) {
  const std::string kv = dir.write("c.kv", "PriorityWeightAge=1\n");
  ProcessResult r = abi_host({"--describe", so("fake"), kv, jobs_txt(), kNow});
  ASSERT_EQ(r.status, 0) << r.err;
  auto l = lines(r.out);
  // one "op <name> yes|no" line per optional operation, then the breakdown
  const size_t n = MFPRIO_OPS_COUNT - MFPRIO_OPS_REQUIRED;
  ASSERT_GE(l.size(), n + 1 + 10 + 1 + 11 + 6) << r.out;
  EXPECT_EQ(l[0], "op job_resolve yes");
  EXPECT_EQ(l[n - 2], "op free_string yes");
  EXPECT_EQ(l[n - 1], "op set_accounts yes");
  EXPECT_EQ(l[n], "job 3 priority 1163 terms 10");
  EXPECT_EQ(l[n + 1].substr(0, 44), "term 0 site label=SITE parent=-1 flags=0x4 w");
  EXPECT_EQ(l[n + 9].substr(0, 53), "term 8 nice label=NICE parent=-1 flags=0x6 width=11 f");
  EXPECT_EQ(l[n + 11], "columns 11 rows 6");
  EXPECT_EQ(l[n + 12], "column 0 account label=Account decimals=-1 width=20 flags=0xe");
  EXPECT_EQ(l[n + 23], "row 0 parent=-1 depth=0 root|||1.000000|1000|1.000000|1.000000||||");
  EXPECT_EQ(l[n + 25], "row 2 parent=1 depth=2 physics|alice|1|1.000000|600|0.600000|0.600000|0.500000|1.666667||");
  r = abi_host({"--describe", so("noopt"), kv, jobs_txt(), kNow});
  ASSERT_EQ(r.status, 0) << r.err;
  l = lines(r.out);
  ASSERT_EQ(l.size(), n) << r.out;  // only "op <name> no" lines: no breakdown, no share table
  for (const std::string& line : l) EXPECT_EQ(line.substr(line.size() - 3), " no") << line;
}

}  // namespace

// ---- the real plugins (plugin/), as built by this tree --------------------

class RealPluginE2E : public HostE2E {
 protected:
  void SetUp() override {
    plugin_dir = mfprio::test::env_or_die("MFPRIO_PLUGIN_BUILDDIR");
    MFPRIO_REQUIRE_PLUGIN(plugin_dir, "priority_basic.so");
  }
  std::string plugin_dir;
};

TEST_F(RealPluginE2E, BasicGivesFifoPrioritiesInSubmitOrder) {
  const std::string conf = dir.write("basic.conf", "PriorityType=priority/basic\nPluginDir=" + plugin_dir + "\n");
  // Job 30 was submitted first, then 10, then 20 (in two partitions), then 40 (nice 5).
  const std::string jobs = dir.write("fifo.jsonl",
                                     "{\"id\": 10, \"user\": \"a\", \"submit\": 200}\n"
                                     "{\"id\": 20, \"user\": \"b\", \"submit\": 300, \"partition\": \"p,q\"}\n"
                                     "{\"id\": 30, \"user\": \"c\", \"submit\": 100}\n"
                                     "{\"id\": 40, \"user\": \"d\", \"submit\": 400, \"nice\": 5}\n"
                                     "{\"id\": 50, \"user\": \"e\", \"submit\": 500, \"state\": \"held\"}\n");
  ProcessResult r = host({"--conf", conf, "sprio", "--job-file", jobs, "-P", "-h"});
  ASSERT_EQ(r.status, 0) << r.err;
  const uint32_t top = 0xffff0000u;
  auto l = lines(r.out);
  ASSERT_EQ(l.size(), 5u) << r.out;
  // Printed in job id order; numbered in submit order; one priority per job,
  // shared by its partitions; nice subtracted (the FIFO column is the number
  // before nice, basic's one term); the held job is not listed (as sprio).
  EXPECT_EQ(l[0], "10||" + std::to_string(top - 2) + "|" + std::to_string(top - 2) + "|");
  EXPECT_EQ(l[1], "20|p|" + std::to_string(top - 3) + "|" + std::to_string(top - 3) + "|");
  EXPECT_EQ(l[2], "20|q|" + std::to_string(top - 3) + "|" + std::to_string(top - 3) + "|");
  EXPECT_EQ(l[3], "30||" + std::to_string(top - 1) + "|" + std::to_string(top - 1) + "|");
  EXPECT_EQ(l[4], "40||" + std::to_string(top - 4 - 5) + "|" + std::to_string(top - 4) + "|");
  // --all-states lists it: held = 0 with no terms.
  r = host({"--conf", conf, "sprio", "--job-file", jobs, "-P", "-h", "--all-states"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(lines(r.out).at(5), "50||0||") << r.out;
}

TEST_F(RealPluginE2E, BasicRejectsNegativeNiceWithItsMessage) {
  const std::string conf = dir.write("basic.conf", "PriorityType=priority/basic\nPluginDir=" + plugin_dir + "\n");
  const std::string jobs = dir.write("nice.jsonl",
                                     "{\"id\": 1, \"user\": \"a\", \"nice\": -10}\n"
                                     "{\"id\": 2, \"user\": \"a\", \"nice\": -10, \"nice_admin\": true}\n");
  ProcessResult r = host({"--conf", conf, "sprio", "--job-file", jobs, "-P", "-h"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.err, jobs + ":1: job 1: nice -10 would raise the priority")) << r.err;
  EXPECT_FALSE(has(r.err, "job 1: job 1")) << r.err;
  auto l = lines(r.out);
  ASSERT_EQ(l.size(), 1u) << r.out;
  EXPECT_EQ(l[0], "2||" + std::to_string(0xffff0000u - 1 + 10) + "|" + std::to_string(0xffff0000u - 1) + "|");
}

TEST_F(RealPluginE2E, BasicInfoWeightsRowAndNoShareView) {
  // priority/basic keeps no shares: its .so does not export share_table, and
  // the host says so instead of printing an empty table.
  const std::string conf = dir.write("basic.conf", "PriorityType=priority/basic\nPluginDir=" + plugin_dir + "\n");
  ProcessResult r = host({"--conf", conf, "sprio", "-w", "-P"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(lines(r.out).at(1), "Weights|||1|");
  r = host({"--conf", conf, "sshare", "-a", "-P"});
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(has(r.err, "no share view")) << r.err;
  r = host({"--conf", conf, "info"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "\"plugin_type\": \"priority/basic\"")) << r.out;
}

TEST_F(RealPluginE2E, MultifactorInitErrorIsShown) {
  // No AccountingStorageLoc: the multifactor plugin refuses to start and says why.
  MFPRIO_REQUIRE_PLUGIN(plugin_dir, "priority_multifactor.so");
  const std::string conf = dir.write("mf.conf", "PluginDir=" + plugin_dir + "\nPriorityWeightAge=1000\n");
  ProcessResult r = host({"--conf", conf, "info"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.err, plugin_dir + "/priority_multifactor.so: init failed: ")) << r.err;
  EXPECT_TRUE(has(r.err, "AccountingStorageLoc")) << r.err;
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
}

// priority/maui through mfprio-host: the sample maui.cfg (a site file with
// scheduler lines the plugin ignores) drives sprio's component columns and
// the diagnose -f style share view; usage charged by decay lands in the
// windows and shows per credential.
TEST_F(RealPluginE2E, MauiSampleConfigDrivesSprioAndTheFairShareView) {
  MFPRIO_REQUIRE_PLUGIN(plugin_dir, "priority_maui.so");
  const std::string src = mfprio::test::env_or_die("MFPRIO_TEST_SRCDIR") + "/../../samples/maui.cfg";
  const std::string conf = dir.write("maui.conf", "PriorityType=priority/maui\nPriorityParameters=config=" + src +
                                                      "\nPluginDir=" + plugin_dir + "\nAccountingStorageLoc=" +
                                                      dir.path() + "/acct.db\nClusterCPUs=240\n");
  const std::string running = dir.write("run.jsonl",
      "{\"id\": 9, \"user\": \"bob\", \"account\": \"theory\", \"partition\": \"batch\", \"state\": \"running\","
      " \"start\": 1763700000, \"cpus\": 10}\n");
  ProcessResult r = host({"--conf", conf, "decay", "--now", "1763700000", "--running", running});
  ASSERT_EQ(r.status, 0) << r.err;
  r = host({"--conf", conf, "decay", "--now", "1763703600", "--running", running});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string jobs = dir.write("jobs.jsonl",
      "{\"id\": 1, \"user\": \"alice\", \"account\": \"theory\", \"partition\": \"debug\", \"submit\": 1763700000,"
      " \"cpus\": 4, \"time_limit\": 60}\n"
      "{\"id\": 2, \"user\": \"bob\", \"account\": \"theory\", \"partition\": \"batch\", \"submit\": 1763700000,"
      " \"cpus\": 4, \"time_limit\": 60}\n");
  r = host({"--conf", conf, "--now", "1763703600", "sprio", "--job-file", jobs, "-P"});
  ASSERT_EQ(r.status, 0) << r.err;  // bob's job is clamped up to 1: a notice, not an error
  EXPECT_TRUE(has(r.err, "1 priority raised to 1")) << r.err;
  auto l = lines(r.out);
  ASSERT_EQ(l.size(), 3u) << r.out;
  EXPECT_EQ(l[0], "JOBID|PARTITION|PRIORITY|SERV|TARG|CRED|ATTR|FS|RES|USAGE|");
  const auto a = mfprio::test::cells(l[1]), b = mfprio::test::cells(l[2]);
  ASSERT_EQ(a.size(), 10u) << r.out;
  ASSERT_EQ(b.size(), 10u) << r.out;
  // alice (PRIORITY=100, class debug 1000, under her target) outranks bob (over his ceiling).
  EXPECT_GT(std::stol(a[2]), std::stol(b[2])) << r.out;
  EXPECT_EQ(a[5], "1100");  // CRED: USERWEIGHT 1 x 100 + CLASSWEIGHT 1 x 1000
  // The components add up to the priority (truncated).
  long sum = 0;
  for (size_t i = 3; i < a.size(); ++i) sum += std::stol(a[i]);
  EXPECT_NEAR(static_cast<double>(sum), std::stod(a[2]), 7.0) << r.out;
  r = host({"--conf", conf, "--now", "1763703600", "sshare", "-p"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "Credential|Target|Usage%|FSFactor|Decayed|")) << r.out;
  EXPECT_TRUE(has(r.out, "bob|20.00-|100.00|")) << r.out;   // all the usage is bob's, a ceiling target
  EXPECT_TRUE(has(r.out, "TOTAL||100.00||36000.0|")) << r.out;  // 10 procs x 3600 s
  // diagnose -p's per-job percentages: each job's term cells are its
  // share of that job's priority with the value; the Percent row stays.
  r = host({"--conf", conf, "--now", "1763703600", "sprio", "--percent", "--job-file", jobs, "-P"});
  ASSERT_EQ(r.status, 0) << r.err;
  l = lines(r.out);
  ASSERT_EQ(l.size(), 4u) << r.out;
  const auto pa = mfprio::test::cells(l[1]);
  ASSERT_EQ(pa.size(), 10u) << r.out;
  double pct = 0;
  for (size_t i = 3; i < pa.size(); ++i) {
    ASSERT_NE(pa[i].find('('), std::string::npos) << l[1];
    pct += std::stod(pa[i]);
  }
  EXPECT_NEAR(pct, 100.0, 0.5) << l[1];
  EXPECT_TRUE(has(pa[5], "(1100)")) << l[1];
  EXPECT_EQ(mfprio::test::cells(l[3]).at(0), "Percent") << r.out;
  // ... and diagnose -f's header above the credential table (not with -p).
  r = host({"--conf", conf, "--now", "1763703600", "sshare"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("FairShare Information\n\nDepth: ", 0), 0u) << r.out;
  EXPECT_TRUE(has(r.out, "FS Policy: DEDICATEDPS")) << r.out;
}

// diagnose -f lists every FSTARGET before any usage exists.
TEST_F(RealPluginE2E, MauiShareViewShowsTargetsBeforeAnyUsage) {
  MFPRIO_REQUIRE_PLUGIN(plugin_dir, "priority_maui.so");
  const std::string src = mfprio::test::env_or_die("MFPRIO_TEST_SRCDIR") + "/../../samples/maui.cfg";
  const std::string conf = dir.write("maui.conf", "PriorityType=priority/maui\nPriorityParameters=config=" + src +
                                                      "\nPluginDir=" + plugin_dir + "\nAccountingStorageLoc=" +
                                                      dir.path() + "/acct.db\n");
  ProcessResult r = mfprio::test::run_acct({"--db", dir.path() + "/acct.db", "-i", "add", "account", "theory"});
  ASSERT_EQ(r.status, 0) << r.err;
  r = host({"--conf", conf, "sshare", "-p"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "alice|30.00|0.00|")) << r.out;
  EXPECT_TRUE(has(r.out, "bob|20.00-|0.00|")) << r.out;
  EXPECT_TRUE(has(r.out, "bio|30.00+|0.00|")) << r.out;
}

// The plain-C99 host describes every real family generically: which optional
// operations it has, its terms (the family's own names) and its share columns.
TEST_F(RealPluginE2E, CHostDescribesEveryRealFamilyGenerically) {
  const std::string abi_host = mfprio::test::env_or_die("MFPRIO_ABI_HOST");
  const std::string jobs = dir.write("jobs.txt",
                                     "1 alice theory batch - 1700000000 1700000000 1 8 0 60 0\n");
  auto describe = [&](const std::string& so, const std::string& kv) {
    return run_process({abi_host, "--describe", plugin_dir + "/" + so, kv, jobs, "1700003600"});
  };
  // basic: no share view exported; one FIFO term.
  ProcessResult r = describe("priority_basic.so", dir.write("b.kv", "PriorityType=priority/basic\n"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "op share_table no\n")) << r.out;
  EXPECT_TRUE(has(r.out, "term 0 fifo label=FIFO")) << r.out;
  // multifactor over a store made by mfprio-acct from the sample hierarchy.
  if (std::filesystem::exists(plugin_dir + "/priority_multifactor.so")) {
    const std::string db = dir.path() + "/mf.db";
    const std::string src = mfprio::test::env_or_die("MFPRIO_TEST_SRCDIR") + "/../../samples/accounts.json";
    ASSERT_EQ(mfprio::test::run_acct({"--db", db, "import", src}).status, 0);
    r = describe("priority_multifactor.so", dir.write("m.kv", "AccountingStorageLoc=" + db +
                                                             "\nPriorityWeightFairshare=10000\n"));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(has(r.out, "op share_table yes\n")) << r.out;
    EXPECT_TRUE(has(r.out, " fairshare label=FAIRSHARE ")) << r.out;
    EXPECT_TRUE(has(r.out, "column 5 norm_usage label=NormUsage")) << r.out;
  }
  // maui from the sample maui.cfg: components with sub-components, the diagnose -f columns.
  if (std::filesystem::exists(plugin_dir + "/priority_maui.so")) {
    const std::string cfg = mfprio::test::env_or_die("MFPRIO_TEST_SRCDIR") + "/../../samples/maui.cfg";
    r = describe("priority_maui.so", dir.write("q.kv", "PriorityParameters=config=" + cfg +
                                                          "\nAccountingStorageLoc=" + dir.path() + "/q.db\n"));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(has(r.out, "term 0 SERV label=SERV parent=-1")) << r.out;
    EXPECT_TRUE(has(r.out, " SERV.QUEUETIME label=QUEUETIME parent=0 ")) << r.out;
    EXPECT_TRUE(has(r.out, "column 1 target label=Target")) << r.out;
  }
}

// priority/gridengine through mfprio-host and mfprio-acct: a site's qconf
// outputs (samples/gridengine) unchanged, the share tree imported with
// import-sstree, a job file holding running jobs: sprio lists the pending
// ones with the qstat columns, the 32-bit priorities follow prio's order.
TEST_F(RealPluginE2E, GridEngineQconfOutputsDriveSprioAndTheShareMonitor) {
  MFPRIO_REQUIRE_PLUGIN(plugin_dir, "priority_gridengine.so");
  const std::string src = mfprio::test::env_or_die("MFPRIO_TEST_SRCDIR") + "/../../samples/gridengine/";
  const std::string conf = mfprio::test::gridengine_sample_conf(dir.path(), src, plugin_dir, "ClusterCPUs=256\n");
  ProcessResult r = host({"--conf", conf, "--now", "1763726400", "sprio", "-l", "-P", "--job-file", src + "jobs.jsonl"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto l = lines(r.out);
  ASSERT_EQ(l.size(), 5u) << r.out;  // the header and the four pending jobs; job 105 runs
  // PRIORITY is qstat's prio (what a Grid Engine admin reads); the
  // 32-bit ordering key shows as KEY in the long format only.
  EXPECT_EQ(l[0], "JOBID|PARTITION|USER|ACCOUNT|PRIORITY|KEY|URGENCY|TICKETS|POSIX|NURG|URG|NTCKTS|TCKTS|NPPRIOR|PPRI|");
  // The 32-bit priority orders the jobs as prio does.
  std::vector<std::pair<double, uint64_t>> by_prio;
  for (size_t i = 1; i < l.size(); ++i) {
    const auto c = mfprio::test::cells(l[i]);
    ASSERT_EQ(c.size(), 15u) << l[i];
    EXPECT_EQ(c[4].size(), 7u) << l[i];  // 0.xxxxx, as qstat -pri prints prio
    by_prio.emplace_back(std::stod(c[4]), std::stoull(c[5]));
  }
  std::sort(by_prio.begin(), by_prio.end());
  for (size_t i = 1; i < by_prio.size(); ++i) EXPECT_LT(by_prio[i - 1].second, by_prio[i].second) << r.out;
  EXPECT_TRUE(has(l[3], "|carol|")) << r.out;
  EXPECT_TRUE(has(l[3], "|-100|")) << r.out;  // posix_priority -100
  r = host({"--conf", conf, "--now", "1763726400", "sprio", "-P", "--job-file", src + "jobs.jsonl"});
  ASSERT_EQ(r.status, 0) << r.err;
  l = lines(r.out);
  ASSERT_EQ(l.size(), 5u) << r.out;
  EXPECT_EQ(l[0], "JOBID|PARTITION|PRIORITY|URGENCY|TICKETS|POSIX|");
  EXPECT_TRUE(has(l[1], "|0.")) << r.out;
  r = host({"--conf", conf, "sshare", "-a", "-p"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "Node|Shares|Level%|Total%|LongTarget|ShortTarget|ActualUsage|Usage|Tickets|")) << r.out;
  EXPECT_TRUE(has(r.out, "  carol|100|100.00|30.00|")) << r.out;
}

// The share-tree view shows the last pass's targets and tickets.
// Grid Engine sets them in its pricing pass; sshare --job-file prices the
// file's queue first (generically: any family with prioritize).
TEST_F(RealPluginE2E, ShareViewAfterThePricingPassShowsTargetsAndTickets) {
  MFPRIO_REQUIRE_PLUGIN(plugin_dir, "priority_gridengine.so");
  const std::string src = mfprio::test::env_or_die("MFPRIO_TEST_SRCDIR") + "/../../samples/gridengine/";
  const std::string conf = mfprio::test::gridengine_sample_conf(dir.path(), src, plugin_dir, "ClusterCPUs=256\n");
  ProcessResult r = host({"--conf", conf, "--now", "1763726400", "sshare", "-a", "-P"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "\n  carol|100|100.00|30.00|0.0000|0.0000|0.0000|0.0|0\n")) << r.out;  // no pass yet
  r = host({"--conf", conf, "--now", "1763726400", "sshare", "-a", "-P", "--job-file", src + "jobs.jsonl"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "\n  carol|100|100.00|27.27|0.3000|0.3000|0.0000|0.0|3000\n")) << r.out;
  EXPECT_TRUE(has(r.out, "\n physics|60|54.55|54.55|0.6000|0.6000|0.0000|0.0|10353\n")) << r.out;
  // A bad job file shows nothing.
  const std::string bad = dir.write("bad.jsonl", "{\"id\": 1, \"user\": \"carol\", \"cpus\": \"x\"}\n");
  r = host({"--conf", conf, "--now", "1763726400", "sshare", "-a", "--job-file", bad});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(has(r.err, bad + ":1: field 'cpus'")) << r.err;
  EXPECT_TRUE(has(r.err, "sshare: fix the job file first (nothing was shown)")) << r.err;
}
