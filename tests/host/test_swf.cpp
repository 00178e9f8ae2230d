// test_swf.cpp - the SWF reader (swf.hpp) and the replay plan (replay.hpp):
// header values, field checks naming FILE:LINE and the field, the limit,
// the user/group/partition mapping, start/end times and the accounts JSON.
#include <gtest/gtest.h>

#include <jansson.h>

#include "replay.hpp"
#include "swf.hpp"
#include "test_util.hpp"

using namespace mfprio::host;

namespace {

// An 18-field record with the fields replay reads; the rest -1.
std::string rec(int num, int submit, int wait, int run, int procs, int user, int group, int queue = -1,
                int part = -1, int req_procs = -1, int req_time = -1) {
  std::string s;
  const int f[18] = {num, submit, wait, run, procs, -1, -1, req_procs, req_time, -1, 1, user, group, -1, queue, part,
                     -1, -1};
  for (int v : f) s += " " + std::to_string(v);
  return s + "\n";
}

std::string error_of(const std::string& text) {
  try {
    parse_swf_text(text, "t.swf");
  } catch (const SwfError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Swf, ReadsHeaderValuesAndRecordsSkippingCommentsAndBlankLines) {
  const SwfTrace t = parse_swf_text("; Version: 2.2\n; MaxProcs: 240\n;MaxNodes:120\n; UnixStartTime: 1027839845\n"
                                    ";\n\n" +
                                        rec(1, 0, 5, 100, 4, 3, 1) + "   \n" + rec(2, 8, -1, 50, 2, 4, 2),
                                    "t.swf");
  EXPECT_EQ(t.max_procs, 240);
  EXPECT_EQ(t.max_nodes, 120);
  EXPECT_EQ(t.unix_start_time, 1027839845);
  ASSERT_EQ(t.jobs.size(), 2u);
  EXPECT_EQ(t.jobs[0].line, 7u);
  EXPECT_EQ(t.jobs[0].wait, 5);
  EXPECT_EQ(t.jobs[1].line, 9u);
  EXPECT_EQ(t.jobs[1].user, 4);
  EXPECT_EQ(t.jobs[1].group, 2);
}

TEST(Swf, WrongFieldCountNamesFileAndLine) {
  EXPECT_EQ(error_of(rec(1, 0, 0, 1, 1, 1, 1) + " 1 2 3\n"), "t.swf:2: expected 18 fields, found 3");
}

TEST(Swf, NonIntegerFieldNamesTheField) {
  const std::string bad = " 1 0 0 abc 1 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n";
  EXPECT_EQ(error_of("; c\n" + bad), "t.swf:2: field 4 (run time): 'abc' is not an integer");
  EXPECT_EQ(error_of(" 1 0 0 5 1 -1 -1 -1 -1 -1 1 -7 1 -1 -1 -1 -1 -1\n"),
            "t.swf:1: field 12 (user id): -7 is negative (-1 means unknown)");
  EXPECT_EQ(error_of(" 1 -1 0 5 1 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"),
            "t.swf:1: field 2 (submit time): unknown (-1): a job needs a submit time");
  EXPECT_EQ(error_of("; MaxProcs: lots\n"), "t.swf:1: header MaxProcs: 'lots' is not a non-negative integer");
}

TEST(Swf, FractionalCpuTimeIsAccepted) {
  const SwfTrace t = parse_swf_text(" 1 0 0 5 1 3.25 1.5 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n", "t.swf");
  EXPECT_EQ(t.jobs.size(), 1u);
}

TEST(Swf, LimitStopsReadingBeforeABadLaterRecord) {
  const SwfTrace t = parse_swf_text(rec(1, 0, 0, 1, 1, 1, 1) + rec(2, 1, 0, 1, 1, 1, 1) + "garbage\n", "t.swf", 2);
  EXPECT_EQ(t.jobs.size(), 2u);
  EXPECT_TRUE(t.truncated);
}

TEST(Swf, MissingFileIsAClearError) {
  try {
    read_swf("/nonexistent/trace.swf");
    FAIL() << "no error";
  } catch (const SwfError& e) {
    EXPECT_STREQ(e.what(), "cannot open trace '/nonexistent/trace.swf': No such file or directory");
  }
}

TEST(ReplayPlan, MapsNamesTimesAndSkipsUnknowns) {
  const SwfTrace t = parse_swf_text("; UnixStartTime: 1000\n; MaxProcs: 8\n; MaxNodes: 4\n" +
                                        rec(1, 10, 20, 30, 3, 5, 2, -1, 1, -1, 90) +  // p1
                                        rec(2, 11, -1, 40, -1, 6, -1, 0, -1, 2) +     // requested procs, q0
                                        rec(3, 12, 0, -1, 1, 5, 2) +                  // run time unknown
                                        rec(4, 13, 0, 10, -1, 5, 2) +                 // processors unknown
                                        rec(5, 14, 0, 10, 1, -1, 2),                  // user unknown
                                    "t.swf");
  const ReplayPlan p = plan_replay(t);
  ASSERT_EQ(p.jobs.size(), 2u);
  EXPECT_EQ(p.skipped_runtime, 1u);
  EXPECT_EQ(p.skipped_procs, 1u);
  EXPECT_EQ(p.skipped_user, 1u);
  EXPECT_EQ(p.epoch0, 1000);
  const ReplayJob& a = p.jobs[0];
  EXPECT_EQ(a.submit, 1010);
  EXPECT_EQ(a.start, 1030);
  EXPECT_EQ(a.end, 1060);
  EXPECT_STREQ(a.job.user, "u5");
  EXPECT_STREQ(a.job.account, "g2");
  EXPECT_STREQ(a.job.partition, "p1");
  EXPECT_EQ(a.job.cpus, 3u);
  EXPECT_EQ(a.job.min_nodes, 2u);       // 3 of 8 processors on 4 nodes: 2 nodes
  EXPECT_EQ(a.job.time_limit_min, 2u);  // 90 s rounds up to 2 minutes
  const ReplayJob& b = p.jobs[1];
  EXPECT_EQ(b.start, b.submit);  // wait -1: the submit time is the start time
  EXPECT_STREQ(b.job.account, "");
  EXPECT_STREQ(b.job.partition, "q0");
  EXPECT_EQ(b.job.cpus, 2u);
  EXPECT_EQ(p.cpu_seconds, 3u * 30 + 2u * 40);
  EXPECT_EQ(plan_replay(t, 5).jobs[0].submit, 15);  // --start
}

TEST(ReplayPlan, EighteenDigitMaxNodesDoesNotOverflowTheNodeCount) {
  // 4000 processors x 999999999999999999 nodes overflows int64; the count is clamped, never negative or 1.
  const SwfTrace t = parse_swf_text("; MaxProcs: 8\n; MaxNodes: 999999999999999999\n" +
                                        rec(1, 10, 0, 30, 4000, 5, 2) + rec(2, 11, 0, 30, 4, 5, 2),
                                    "t.swf");
  const ReplayPlan p = plan_replay(t);
  ASSERT_EQ(p.jobs.size(), 2u);
  EXPECT_EQ(p.jobs[0].job.min_nodes, UINT32_MAX);
  EXPECT_EQ(p.jobs[1].job.min_nodes, UINT32_MAX);
  const SwfTrace small = parse_swf_text("; MaxProcs: 8\n; MaxNodes: 2\n" + rec(1, 10, 0, 30, 5, 5, 2), "s.swf");
  EXPECT_EQ(plan_replay(small).jobs[0].job.min_nodes, 2u);  // 5 of 8 processors on 2 nodes: 2
}

TEST(ReplayPlan, AccountsJsonHasEveryGroupAndUserWithTheFirstGroupAsDefault) {
  const SwfTrace t =
      parse_swf_text(rec(1, 0, 0, 1, 1, 7, 2) + rec(2, 0, 0, 1, 1, 7, 1) + rec(3, 0, 0, 1, 1, 8, -1), "t.swf");
  const std::string text = accounts_json(plan_replay(t));
  json_error_t err;
  json_t* doc = json_loads(text.c_str(), 0, &err);
  ASSERT_NE(doc, nullptr) << err.text;
  json_t* accounts = json_object_get(doc, "accounts");
  ASSERT_EQ(json_array_size(accounts), 3u) << text;  // g1, g2, nogroup
  EXPECT_STREQ(json_string_value(json_object_get(json_array_get(accounts, 0), "name")), "g1");
  EXPECT_STREQ(json_string_value(json_object_get(json_array_get(accounts, 2), "name")), "nogroup");
  json_t* users = json_object_get(doc, "users");
  ASSERT_EQ(json_array_size(users), 3u) << text;
  json_t* first = json_array_get(users, 0);
  EXPECT_STREQ(json_string_value(json_object_get(first, "name")), "u7");
  EXPECT_STREQ(json_string_value(json_object_get(first, "account")), "g2");
  EXPECT_TRUE(json_is_true(json_object_get(first, "default")));
  EXPECT_TRUE(json_is_false(json_object_get(json_array_get(users, 1), "default")));
  EXPECT_STREQ(json_string_value(json_object_get(json_array_get(users, 2), "account")), "nogroup");
  json_decref(doc);
}

}  // namespace
