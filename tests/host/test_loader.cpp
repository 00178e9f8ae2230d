// test_loader.cpp - plugin discovery, identity and symbol checks, the host
// table given to init, and fini/dlclose, in process against the fixture
// plugins built from fake_plugin.c.
#include <gtest/gtest.h>

#include <jansson.h>

#include "json_util.hpp"
#include "loader.hpp"
#include "test_util.hpp"

using namespace mfprio::host;
using mfprio::ClusterTotals;
using mfprio::Conf;
using mfprio::test::TempDir;

namespace {

std::string fixture_dir() { return mfprio::test::env_or_die("MFPRIO_FIXTURE_PLUGINDIR"); }

std::string open_error(const std::string& type, const std::vector<std::string>& dirs) {
  try {
    Plugin::open(type, dirs);
  } catch (const LoadError& e) {
    return e.what();
  }
  return "(no error)";
}

JsonPtr info_of(Plugin& p) {
  char* raw = nullptr;
  p.check(p.ops().plugin_info_json(&raw), "plugin_info_json");
  Plugin::PluginString s = p.adopt(raw);
  JsonPtr j(json_loads(s.get(), 0, nullptr));
  EXPECT_TRUE(j);
  return j;
}

TEST(Loader, FindsAndChecksAGoodPlugin) {
  auto p = Plugin::open("priority/fake", {"/nonexistent-dir", fixture_dir()});
  EXPECT_EQ(p->type(), "priority/fake");
  EXPECT_EQ(p->name(), "fake priority plugin (host tests)");
  EXPECT_EQ(p->path(), fixture_dir() + "/priority_fake.so");
  EXPECT_NE(p->ops().init, nullptr);
  EXPECT_NE(p->ops().free_string, nullptr);
}

TEST(Loader, NotFoundNamesEveryDirectorySearched) {
  const std::string err = open_error("priority/nothere", {"/a/b", "/c", fixture_dir()});
  EXPECT_EQ(err, "plugin priority/nothere not found: no priority_nothere.so in /a/b, /c, " + fixture_dir() +
                     " (PluginDir)");
}

TEST(Loader, MissingRequiredSymbolIsNamed) {
  const std::string err = open_error("priority/nosym", {fixture_dir()});
  EXPECT_EQ(err, fixture_dir() + "/priority_nosym.so: plugin is corrupted: missing required symbol 'decay'");
}

TEST(Loader, AbiVersionMismatchIsRejected) {
  const std::string err = open_error("priority/badver", {fixture_dir()});
  EXPECT_EQ(err, fixture_dir() + "/priority_badver.so: plugin_version 99 does not match the host's ABI version 2");
}

TEST(Loader, V1PluginIsRefusedWithARebuildMessage) {
  const std::string err = open_error("priority/v1", {fixture_dir()});
  EXPECT_EQ(err, fixture_dir() +
                     "/priority_v1.so: built for mfprio ABI v1; this host speaks ABI v2: rebuild the plugin against "
                     "mfprio.h v2");
}

TEST(Loader, FullPluginFillsEveryOperation) {
  auto p = Plugin::open("priority/fake", {fixture_dir()});
  const void* const* slots = reinterpret_cast<const void* const*>(&p->ops());
  for (size_t i = 0; i < MFPRIO_OPS_COUNT; ++i) EXPECT_NE(slots[i], nullptr) << "slot " << i;
}

TEST(Loader, OptionalOperationsMayBeMissing) {
  auto p = Plugin::open("priority/noopt", {fixture_dir()});
  const mfprio_ops_t& ops = p->ops();
  EXPECT_NE(ops.init, nullptr);
  EXPECT_NE(ops.fini, nullptr);
  EXPECT_NE(ops.set_priority, nullptr);
  EXPECT_NE(ops.decay, nullptr);
  EXPECT_NE(ops.errmsg, nullptr);
  const void* const* slots = reinterpret_cast<const void* const*>(&ops);
  for (size_t i = MFPRIO_OPS_REQUIRED; i < MFPRIO_OPS_COUNT; ++i) EXPECT_EQ(slots[i], nullptr) << "slot " << i;
  // It still runs: init, a priority, fini.
  p->init(Conf::parse("", "c"), ClusterTotals{}, nullptr, nullptr);
  mfprio_job_t job{};
  job.struct_size = sizeof job;
  job.job_id = 1;
  job.user = "u";
  uint32_t prio = 0;
  EXPECT_EQ(ops.set_priority(&job, 0, &prio), MFPRIO_OK);
  EXPECT_EQ(prio, 350u);  // fair share 250 + partition 0.5 x 200 (no age, no CPUs known)
  EXPECT_EQ(p->adopt(nullptr).get(), nullptr);  // no free_string: adopting nothing is harmless
}

TEST(Loader, JsonOperationsWithoutFreeStringAreRefused) {
  const std::string err = open_error("priority/nofree", {fixture_dir()});
  EXPECT_EQ(err, fixture_dir() + "/priority_nofree.so: plugin is corrupted: it provides 'job_factors_json' but not "
                                 "'free_string'");
}

TEST(Loader, PluginTypeMustMatchTheRequestedType) {
  const std::string err = open_error("priority/wrongtype", {fixture_dir()});
  EXPECT_EQ(err, fixture_dir() + "/priority_wrongtype.so: plugin_type is 'priority/other', expected 'priority/wrongtype'");
}

TEST(Loader, MissingIdentitySymbolIsRejected) {
  const std::string err = open_error("priority/noident", {fixture_dir()});
  EXPECT_EQ(err, fixture_dir() + "/priority_noident.so: not an mfprio plugin: missing symbol 'plugin_version'");
}

TEST(Loader, UnloadableFileIsReportedWithDlerror) {
  TempDir d;
  d.write("priority_garbage.so", "this is not an ELF file\n");
  const std::string err = open_error("priority/garbage", {d.path()});
  EXPECT_EQ(err.rfind(d.path() + "/priority_garbage.so: cannot load plugin: ", 0), 0u) << err;
}

TEST(Loader, FirstDirectoryInTheListWins) {
  TempDir d;
  d.write("priority_fake.so", "not a plugin");
  // The broken copy comes first, so it is the one loaded (and rejected).
  EXPECT_NE(open_error("priority/fake", {d.path(), fixture_dir()}).find(d.path()), std::string::npos);
  auto p = Plugin::open("priority/fake", {fixture_dir(), d.path()});
  EXPECT_EQ(p->path(), fixture_dir() + "/priority_fake.so");
}

TEST(Loader, InitGetsConfClockAndClusterTotals) {
  Conf conf = Conf::parse("PriorityType=priority/fake\nPriorityWeightAge=7 Other=x\n", "site.conf");
  ClusterTotals t;
  t.nodes = 4;
  t.cpus = 128;
  t.mem_mb = 512000;
  t.extra = {{"gres/gpu", 8}};
  LogSink sink;
  Clock clock;
  clock.fixed = true;
  clock.now = 1700000000;
  auto p = Plugin::open("priority/fake", {fixture_dir()});
  testing::internal::CaptureStderr();
  p->init(conf, t, &sink, &clock);
  const std::string log = testing::internal::GetCapturedStderr();
  // Warnings pass the default sink level, info does not.
  EXPECT_NE(log.find("mfprio-host: plugin warning: fake warning"), std::string::npos) << log;
  EXPECT_EQ(log.find("fake init"), std::string::npos) << log;

  JsonPtr info = info_of(*p);
  EXPECT_EQ(json_integer_value(json_object_get(info.get(), "clock")), 1700000000);
  EXPECT_EQ(json_integer_value(json_object_get(info.get(), "cluster_nodes")), 4);
  EXPECT_EQ(json_integer_value(json_object_get(info.get(), "cluster_cpus")), 128);
  EXPECT_EQ(json_integer_value(json_object_get(info.get(), "cluster_mem_mb")), 512000);
  EXPECT_EQ(json_number_value(json_object_get(json_object_get(info.get(), "cluster_tres"), "gres/gpu")), 8);
  const json_t* kv = json_object_get(info.get(), "conf");
  ASSERT_EQ(json_array_size(kv), 3u);
  const json_t* third = json_array_get(kv, 2);
  EXPECT_STREQ(json_string_value(json_object_get(third, "key")), "Other");
  EXPECT_STREQ(json_string_value(json_object_get(third, "value")), "x");
  EXPECT_STREQ(json_string_value(json_object_get(third, "file")), "site.conf");
  EXPECT_EQ(json_integer_value(json_object_get(third, "line")), 2);
}

TEST(Loader, VerboseSinkShowsInfoAndDebugAndFiniRuns) {
  Conf conf = Conf::parse("", "e.conf");
  LogSink sink;
  sink.max_level = MFPRIO_LOG_DEBUG;
  Clock clock;
  clock.fixed = true;
  clock.now = 42;
  testing::internal::CaptureStderr();
  {
    auto p = Plugin::open("priority/fake", {fixture_dir()});
    p->init(conf, ClusterTotals{}, &sink, &clock);
  }  // fini, then dlclose
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("plugin info: fake init: 0 conf pairs"), std::string::npos) << log;
  EXPECT_NE(log.find("plugin debug: fake debug: clock 42"), std::string::npos) << log;
  EXPECT_NE(log.find("plugin info: fake fini: resolves=0 factors=0"), std::string::npos) << log;
}

TEST(Loader, InitFailureCarriesThePluginsMessage) {
  Conf conf = Conf::parse("A=1\nFakeInitFail=yes\n", "bad.conf");
  auto p = Plugin::open("priority/fake", {fixture_dir()});
  try {
    p->init(conf, ClusterTotals{}, nullptr, nullptr);
    FAIL() << "init should have failed";
  } catch (const PluginError& e) {
    EXPECT_EQ(std::string(e.what()), fixture_dir() +
                                         "/priority_fake.so: init failed: bad.conf:2: FakeInitFail: init refused on "
                                         "request (ECONF)");
    EXPECT_EQ(e.status, MFPRIO_ECONF);
  }
}

TEST(Loader, CheckTurnsAFailedCallIntoPluginError) {
  auto p = Plugin::open("priority/fake", {fixture_dir()});
  p->init(Conf::parse("", "c"), ClusterTotals{}, nullptr, nullptr);
  mfprio_job_t job{};
  job.struct_size = sizeof job;
  job.job_id = 5;
  job.user = "ghost";
  const int rc = p->ops().job_resolve(&job);
  EXPECT_EQ(rc, MFPRIO_ENOENT);
  EXPECT_THROW(p->check(rc, "job_resolve"), PluginError);
  EXPECT_EQ(p->last_error(), "job 5: unknown user 'ghost'");
  EXPECT_NO_THROW(p->check(MFPRIO_OK, "x"));
}

TEST(Loader, StatusNames) {
  EXPECT_STREQ(status_name(MFPRIO_ENOENT), "ENOENT");
  EXPECT_STREQ(status_name(MFPRIO_EINTERNAL), "EINTERNAL");
  EXPECT_STREQ(status_name(-99), "unknown status");
}

}  // namespace
