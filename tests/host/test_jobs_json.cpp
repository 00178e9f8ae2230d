// test_jobs_json.cpp - the job feed (jobs_json.cpp): every field, every type
// error naming file:line, expansion into one record per partition.
#include <gtest/gtest.h>

#include <initializer_list>
#include <map>
#include <utility>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "jobs_json.hpp"

using mfprio::host::expand_records;
using mfprio::host::JobParseError;
using mfprio::host::JobSpec;
using mfprio::host::parse_job_line;

namespace {

JobSpec parse(const std::string& line) { return parse_job_line(line, "jobs.jsonl", 7); }

std::string error_of(const std::string& line) {
  try {
    parse(line);
  } catch (const JobParseError& e) {
    return e.what();
  }
  return "(no error)";
}

// Each job line (on line 7 of jobs.jsonl) is refused with exactly its message.
void expect_errors(std::initializer_list<std::pair<const char*, const char*>> cases) {
  for (const auto& [line, message] : cases) EXPECT_EQ(error_of(line), message) << line;
}

// Each job line is refused with a message that contains the given text.
void expect_errors_containing(std::initializer_list<std::pair<const char*, const char*>> cases) {
  for (const auto& [line, text] : cases) {
    const std::string e = error_of(line);
    EXPECT_NE(e.find(text), std::string::npos) << line << " -> " << e;
  }
}

TEST(JobsJson, EveryFieldIsRead) {
  JobSpec j = parse(
      R"({"id": 101, "user": "alice", "account": "physics", "partition": "batch", "qos": "high",)"
      R"( "submit": 1700000000, "eligible": 1700000100, "start": 1700000200, "state": "running",)"
      R"( "nodes": 2, "cpus": 4, "mem": "8G", "gres": {"gpu": 2}, "time_limit": "1-00:00:00",)"
      R"( "nice": -5, "nice_admin": true, "site_factor": 7, "prev_priority": 99, "dependent": true,)"
      R"( "tres": {"license/matlab": 1}})");
  EXPECT_EQ(j.id, 101u);
  EXPECT_EQ(j.user, "alice");
  EXPECT_EQ(j.account, "physics");
  EXPECT_EQ(j.partitions, std::vector<std::string>{"batch"});
  EXPECT_EQ(j.qos, "high");
  EXPECT_EQ(j.submit, 1700000000);
  EXPECT_EQ(j.eligible, 1700000100);
  EXPECT_EQ(j.start, 1700000200);
  EXPECT_EQ(j.state, MFPRIO_JOB_RUNNING);
  EXPECT_EQ(j.nodes, 2u);
  EXPECT_EQ(j.cpus, 4u);
  EXPECT_EQ(j.mem_mb, 8192u);
  ASSERT_EQ(j.tres_names.size(), 2u);
  EXPECT_EQ(j.tres_names[0], "gres/gpu");
  EXPECT_EQ(j.tres_counts[0], 2);
  EXPECT_EQ(j.tres_names[1], "license/matlab");
  EXPECT_EQ(j.time_limit_min, 1440u);
  EXPECT_EQ(j.nice, -5);
  EXPECT_TRUE(j.nice_admin);
  EXPECT_EQ(j.site_factor, 7);
  EXPECT_EQ(j.prev_priority, 99u);
  EXPECT_TRUE(j.dependent);
  EXPECT_EQ(j.line, 7u);
  EXPECT_EQ(j.file, "jobs.jsonl");
}

TEST(JobsJson, DefaultsForAMinimalJob) {
  JobSpec j = parse(R"({"id": 1, "user": "bob", "submit": 50})");
  EXPECT_EQ(j.state, MFPRIO_JOB_PENDING);
  EXPECT_EQ(j.nodes, 1u);
  EXPECT_EQ(j.cpus, 1u);
  EXPECT_EQ(j.mem_mb, 0u);
  EXPECT_TRUE(j.partitions.empty());
  EXPECT_EQ(j.eligible, 50);  // eligible at submit by default
  EXPECT_EQ(j.time_limit_min, 0u);
}

TEST(JobsJson, HeldOrDependentJobIsNotEligibleByDefault) {
  EXPECT_EQ(parse(R"({"id": 1, "user": "b", "submit": 50, "state": "held"})").eligible, 0);
  EXPECT_EQ(parse(R"({"id": 1, "user": "b", "submit": 50, "dependent": true})").eligible, 0);
  EXPECT_EQ(parse(R"({"id": 1, "user": "b", "submit": 50, "state": "HELD", "eligible": 60})").eligible, 60);
}

TEST(JobsJson, PartitionListForms) {
  EXPECT_EQ(parse(R"({"id": 1, "user": "u", "partition": "a, b"})").partitions,
            (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(parse(R"({"id": 1, "user": "u", "partition": ["a", "b", "c"]})").partitions,
            (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(parse(R"({"id": 1, "user": "u", "partition": null})").partitions.empty());
}

TEST(JobsJson, MemForms) {
  EXPECT_EQ(parse(R"({"id": 1, "user": "u", "mem": 4000})").mem_mb, 4000u);
  EXPECT_EQ(parse(R"({"id": 1, "user": "u", "mem": "512M"})").mem_mb, 512u);
  EXPECT_EQ(parse(R"({"id": 1, "user": "u", "mem": "1.5G"})").mem_mb, 1536u);
  EXPECT_EQ(parse(R"({"id": 1, "user": "u", "mem": "2T"})").mem_mb, 2u * 1024 * 1024);
  EXPECT_EQ(parse(R"({"id": 1, "user": "u", "mem": "2048K"})").mem_mb, 2u);
  EXPECT_EQ(parse(R"({"id": 1, "user": "u", "mem": "100"})").mem_mb, 100u);
}

TEST(JobsJson, GresStringForms) {
  JobSpec j = parse(R"({"id": 1, "user": "u", "gres": "gpu:a100:2,mps:100,fpga"})");
  ASSERT_EQ(j.tres_names.size(), 3u);
  EXPECT_EQ(j.tres_names[0], "gres/gpu");
  EXPECT_EQ(j.tres_counts[0], 2);
  EXPECT_EQ(j.tres_names[1], "gres/mps");
  EXPECT_EQ(j.tres_counts[1], 100);
  EXPECT_EQ(j.tres_names[2], "gres/fpga");
  EXPECT_EQ(j.tres_counts[2], 1);
}

TEST(JobsJson, TimeLimitForms) {
  EXPECT_EQ(parse(R"({"id": 1, "user": "u", "time_limit": 90})").time_limit_min, 90u);
  EXPECT_EQ(parse(R"({"id": 1, "user": "u", "time_limit": -1})").time_limit_min, 0u);
  EXPECT_EQ(parse(R"({"id": 1, "user": "u", "time_limit": "2:00:00"})").time_limit_min, 120u);
  EXPECT_EQ(parse(R"({"id": 1, "user": "u", "time_limit": "10:30"})").time_limit_min, 11u);  // partial minute
  EXPECT_EQ(parse(R"({"id": 1, "user": "u", "time_limit": "UNLIMITED"})").time_limit_min, 0u);
  EXPECT_EQ(parse(R"({"id": 1, "user": "u", "time_limit": "2-0"})").time_limit_min, 2880u);
}

TEST(JobsJson, StatesAreRecognised) {
  EXPECT_EQ(parse(R"({"id": 1, "user": "u", "state": "pending"})").state, MFPRIO_JOB_PENDING);
  EXPECT_EQ(parse(R"({"id": 1, "user": "u", "state": "suspended"})").state, MFPRIO_JOB_SUSPENDED);
  EXPECT_EQ(parse(R"({"id": 1, "user": "u", "state": "completed"})").state, MFPRIO_JOB_COMPLETED);
}

// A field that is not a job field is an error (it used to be
// ignored, so a misspelled one silently lost its value); the feed's own
// data goes in fields starting with '_'.
TEST(JobsJson, UnknownFieldsAreErrorsUnlessTheyStartWithUnderscore) {
  EXPECT_EQ(parse(R"({"id": 3, "user": "u", "_name": "my job", "_extra": [1,2]})").id, 3u);
  EXPECT_NE(error_of(R"({"id": 3, "user": "u", "title": "my job"})").find("jobs.jsonl:7: field 'title' is not a job field"),
            std::string::npos);
  EXPECT_EQ(parse(R"({"id": 3, "user": "u", "name": "my job"})").name, "my job");  // a view prints it
}

TEST(JobsJson, TypeErrorsNameFileLineAndField) {
  expect_errors({
      {R"({"id": "101", "user": "u"})", "jobs.jsonl:7: field 'id': expected an integer, got a string"},
      {R"({"id": 1, "user": 5})", "jobs.jsonl:7: field 'user': expected a string, got an integer"},
      {R"({"id": 1, "user": "u", "cpus": 4.5})",
       "jobs.jsonl:7: field 'cpus': expected an integer, got a real number"},
      {R"({"id": 1, "user": "u", "nice_admin": 1})",
       "jobs.jsonl:7: field 'nice_admin': expected true or false, got an integer"},
      {R"({"id": 1, "user": "u", "dependent": "yes"})",
       "jobs.jsonl:7: field 'dependent': expected true or false, got a string"},
      {R"({"id": 1, "user": "u", "partition": 3})",
       "jobs.jsonl:7: field 'partition': expected a string or an array of strings, got an integer"},
      {R"({"id": 1, "user": "u", "partition": ["a", 2]})",
       "jobs.jsonl:7: field 'partition': element 1: expected a string, got an integer"},
      {R"({"id": 1, "user": "u", "state": "sleeping"})",
       "jobs.jsonl:7: field 'state': 'sleeping' is not one of pending, running, suspended, held, completed"},
  });
  expect_errors_containing({
      {R"({"id": 1, "user": "u", "mem": "lots"})", "jobs.jsonl:7: field 'mem'"},
      {R"({"id": 1, "user": "u", "mem": true})", "jobs.jsonl:7: field 'mem'"},
      {R"({"id": 1, "user": "u", "gres": 2})", "jobs.jsonl:7: field 'gres'"},
      {R"({"id": 1, "user": "u", "gres": {"gpu": "2"}})", "jobs.jsonl:7: field 'gres'"},
      {R"({"id": 1, "user": "u", "gres": "gpu:x"})", "jobs.jsonl:7: field 'gres'"},
      {R"({"id": 1, "user": "u", "time_limit": "soon"})", "jobs.jsonl:7: field 'time_limit'"},
      {R"({"id": 1, "user": "u", "time_limit": true})", "jobs.jsonl:7: field 'time_limit'"},
      {R"({"id": 1, "user": "u", "submit": "yesterday"})", "jobs.jsonl:7: field 'submit'"},
      {R"({"id": 1, "user": "u", "eligible": -3})", "jobs.jsonl:7: field 'eligible'"},
      {R"({"id": 1, "user": "u", "start": 1.0})", "jobs.jsonl:7: field 'start'"},
      {R"({"id": 1, "user": "u", "nice": "low"})", "jobs.jsonl:7: field 'nice'"},
      {R"({"id": 1, "user": "u", "site_factor": []})", "jobs.jsonl:7: field 'site_factor'"},
      {R"({"id": 1, "user": "u", "prev_priority": -1})", "jobs.jsonl:7: field 'prev_priority'"},
      {R"({"id": 1, "user": "u", "qos": 1})", "jobs.jsonl:7: field 'qos'"},
      {R"({"id": 1, "user": "u", "account": {}})", "jobs.jsonl:7: field 'account'"},
      {R"({"id": 1, "user": "u", "tres": {"x": "1"}})", "jobs.jsonl:7: field 'tres'"},
  });
}

TEST(JobsJson, RangeErrors) {
  expect_errors_containing({
      {R"({"id": 0, "user": "u"})", "field 'id': 0 is out of range"},
      {R"({"id": 1, "user": "u", "cpus": 0})", "field 'cpus': 0 is out of range"},
      {R"({"id": 1, "user": "u", "nodes": 4294967296})", "field 'nodes'"},
      {R"({"id": 1, "user": "u", "nice": 2147483648})", "field 'nice'"},
  });
}

TEST(JobsJson, StructuralErrors) {
  expect_errors({
      {"[1, 2]", "jobs.jsonl:7: expected a JSON object, got an array"},
      {R"({"user": "u"})", "jobs.jsonl:7: missing field 'id'"},
      {R"({"id": 4})", "jobs.jsonl:7: job 4: missing field 'user'"},
      {R"({"id": 4, "user": ""})", "jobs.jsonl:7: field 'user': must not be empty"},
  });
  expect_errors_containing({
      {"{\"id\": 1, ", "jobs.jsonl:7: invalid JSON"},
      {R"({"id": 4, "id": 5, "user": "u"})", "jobs.jsonl:7: invalid JSON"},
      {R"({"id": 1, "user": "u", "partition": "a,,b"})", "empty partition name"},
      {R"({"id": 1, "user": "u", "partition": ["a", "a"]})", "listed twice"},
      {R"({"id": 1, "user": "u", "gres": "gpu:1,gpu:2"})", "requested twice"},
  });
}

TEST(JobsJson, StreamSkipsBlankLinesAndReportsBadOnesWithLineNumbers) {
  std::istringstream in(
      "{\"id\": 1, \"user\": \"a\"}\n"
      "\n"
      "not json\n"
      "{\"id\": 2, \"user\": \"b\"}\n"
      "{\"id\": \"3\", \"user\": \"c\"}\n");
  auto jf = mfprio::host::read_job_stream(in, "f.jsonl");
  ASSERT_EQ(jf.jobs.size(), 2u);
  EXPECT_EQ(jf.jobs[1].id, 2u);
  EXPECT_EQ(jf.jobs[1].line, 4u);
  ASSERT_EQ(jf.errors.size(), 2u);
  EXPECT_EQ(jf.errors[0].rfind("f.jsonl:3: invalid JSON", 0), 0u) << jf.errors[0];
  EXPECT_EQ(jf.errors[1].rfind("f.jsonl:5: field 'id'", 0), 0u) << jf.errors[1];
}

TEST(JobsJson, MissingFileThrows) {
  EXPECT_THROW(mfprio::host::read_job_file("/nonexistent/jobs.jsonl"), JobParseError);
}

TEST(JobsJson, ExpandGivesOneRecordPerPartitionWithAllFieldsMapped) {
  std::vector<JobSpec> jobs;
  jobs.push_back(parse(R"({"id": 9, "user": "alice", "account": "phys", "qos": "normal", "partition": ["a", "b"],)"
                       R"( "submit": 10, "eligible": 20, "start": 30, "nodes": 3, "cpus": 12, "mem": 100,)"
                       R"( "gres": "gpu:2", "time_limit": 60, "nice": 5, "site_factor": -2, "prev_priority": 4,)"
                       R"( "nice_admin": true, "dependent": true, "state": "suspended"})"));
  jobs.push_back(parse(R"({"id": 10, "user": "bob"})"));
  auto recs = expand_records(jobs);
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_STREQ(recs[0].job.partition, "a");
  EXPECT_STREQ(recs[1].job.partition, "b");
  EXPECT_STREQ(recs[2].job.partition, "");
  const mfprio_job_t& j = recs[1].job;
  EXPECT_EQ(j.struct_size, sizeof(mfprio_job_t));
  EXPECT_EQ(j.job_id, 9u);
  EXPECT_STREQ(j.user, "alice");
  EXPECT_STREQ(j.account, "phys");
  EXPECT_STREQ(j.qos, "normal");
  EXPECT_EQ(j.state, MFPRIO_JOB_SUSPENDED);
  EXPECT_EQ(j.submit_time, 10);
  EXPECT_EQ(j.eligible_time, 20);
  EXPECT_EQ(j.start_time, 30);
  EXPECT_EQ(j.min_nodes, 3u);
  EXPECT_EQ(j.cpus, 12u);
  EXPECT_EQ(j.mem_mb, 100u);
  EXPECT_EQ(j.time_limit_min, 60u);
  EXPECT_EQ(j.nice, 5);
  EXPECT_EQ(j.site_factor, -2);
  EXPECT_EQ(j.prev_priority, 4u);
  EXPECT_EQ(j.flags, MFPRIO_JOBF_NICE_ADMIN | MFPRIO_JOBF_DEPENDENT);
  ASSERT_EQ(j.tres_count, 1u);
  EXPECT_STREQ(j.tres[0].name, "gres/gpu");
  EXPECT_EQ(j.tres[0].count, 2);
  EXPECT_EQ(j.handle.generation, 0u);  // zeroed for the plugin to fill
  EXPECT_EQ(recs[2].job.tres, nullptr);
  EXPECT_EQ(recs[2].job.tres_count, 0u);
}

TEST(JobsJson, RecordsSurviveBeingMoved) {
  std::vector<JobSpec> jobs;
  jobs.push_back(parse(R"({"id": 9, "user": "alice", "gres": {"gpu": 3}, "partition": "p"})"));
  auto recs = expand_records(jobs);
  std::vector<mfprio::host::JobRecord> moved;
  moved.push_back(std::move(recs[0]));
  recs.clear();
  EXPECT_STREQ(moved[0].job.tres[0].name, "gres/gpu");
  EXPECT_EQ(moved[0].job.tres[0].count, 3);
  EXPECT_STREQ(moved[0].job.partition, "p");
}

// ---- ABI v2 fields ----------------------------------------------------------

TEST(JobsJson, V2FieldsAreReadAndMapped) {
  std::vector<JobSpec> jobs;
  jobs.push_back(parse(
      R"({"id": 5, "user": "u", "group": "staff", "deadline": "2023-11-15T00:00:00Z", "bypass_count": 3,)"
      R"( "start_count": 2, "user_priority": -100, "urgency": 31, "soft_violation": true, "blocked": true,)"
      R"( "attrs": {"department": "physics", "mem_free": "4G", "slots": 8, "ratio": 0.5, "exclusive": false}})"));
  const JobSpec& s = jobs[0];
  EXPECT_EQ(s.group, "staff");
  EXPECT_EQ(s.deadline, 1700006400);
  EXPECT_EQ(s.bypass_count, 3u);
  EXPECT_EQ(s.start_count, 2u);
  EXPECT_EQ(s.user_priority, -100);
  EXPECT_TRUE(s.urgency_given);
  EXPECT_EQ(s.urgency, 31u);
  auto recs = expand_records(jobs);
  const mfprio_job_t& j = recs[0].job;
  EXPECT_STREQ(j.group, "staff");
  EXPECT_EQ(j.deadline, 1700006400);
  EXPECT_EQ(j.bypass_count, 3u);
  EXPECT_EQ(j.start_count, 2u);
  EXPECT_EQ(j.user_priority, -100);
  EXPECT_EQ(j.urgency, 31u);
  EXPECT_EQ(j.flags, MFPRIO_JOBF_URGENCY | MFPRIO_JOBF_SOFT_VIOLATION | MFPRIO_JOBF_BLOCKED);
  ASSERT_EQ(j.attr_count, 5u);
  EXPECT_STREQ(j.attrs[0].name, "department");
  EXPECT_STREQ(j.attrs[0].value, "physics");
  EXPECT_STREQ(j.attrs[1].value, "4G");
  EXPECT_STREQ(j.attrs[2].value, "8");
  EXPECT_STREQ(j.attrs[3].value, "0.5");
  EXPECT_STREQ(j.attrs[4].name, "exclusive");
  EXPECT_STREQ(j.attrs[4].value, "false");
  // The attribute strings live in the spec: they survive moving the record.
  std::vector<mfprio::host::JobRecord> moved;
  moved.push_back(std::move(recs[0]));
  recs.clear();
  EXPECT_STREQ(moved[0].job.attrs[1].name, "mem_free");
  EXPECT_EQ(moved[0].job.attrs, moved[0].attrs.data());
}

TEST(JobsJson, V2DefaultsAreZeroAndNoFlags) {
  std::vector<JobSpec> jobs;
  jobs.push_back(parse(R"({"id": 5, "user": "u"})"));
  auto recs = expand_records(jobs);
  const mfprio_job_t& j = recs[0].job;
  EXPECT_EQ(j.struct_size, sizeof(mfprio_job_t));
  EXPECT_STREQ(j.group, "");
  EXPECT_EQ(j.deadline, 0);
  EXPECT_EQ(j.bypass_count, 0u);
  EXPECT_EQ(j.start_count, 0u);
  EXPECT_EQ(j.user_priority, 0);
  EXPECT_EQ(j.urgency, 0u);  // not given: the flag is off and the plugin reads 16
  EXPECT_EQ(j.flags, 0u);
  EXPECT_EQ(j.attr_count, 0u);
  EXPECT_EQ(j.attrs, nullptr);
}

TEST(JobsJson, DeadlineTakesEpochSecondsToo) {
  EXPECT_EQ(parse(R"({"id": 1, "user": "u", "deadline": 1700000000})").deadline, 1700000000);
  EXPECT_EQ(parse(R"({"id": 1, "user": "u", "deadline": "1700000000"})").deadline, 1700000000);
}

TEST(JobsJson, UrgencyZeroIsGivenAndFlagged) {
  std::vector<JobSpec> jobs;
  jobs.push_back(parse(R"({"id": 1, "user": "u", "urgency": 0})"));
  auto recs = expand_records(jobs);
  EXPECT_EQ(recs[0].job.urgency, 0u);
  EXPECT_EQ(recs[0].job.flags, MFPRIO_JOBF_URGENCY);
}

TEST(JobsJson, UserPriorityAdminSetsItsFlag) {
  std::vector<JobSpec> jobs;
  jobs.push_back(parse(R"({"id": 1, "user": "u", "user_priority": 500, "user_priority_admin": true})"));
  auto recs = expand_records(jobs);
  EXPECT_EQ(recs[0].job.user_priority, 500);
  EXPECT_EQ(recs[0].job.flags, MFPRIO_JOBF_USER_PRIORITY_ADMIN);
}

TEST(JobsJson, QueueIsThePartitionAndBankOrProjectTheAccount) {
  JobSpec j = parse(R"({"id": 1, "user": "u", "queue": "all.q", "bank": "physics"})");
  EXPECT_EQ(j.partitions, std::vector<std::string>{"all.q"});
  EXPECT_EQ(j.account, "physics");
  j = parse(R"({"id": 1, "user": "u", "queue": "a,b", "project": "p1"})");
  EXPECT_EQ(j.partitions, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(j.account, "p1");
  // Both given and equal: fine.
  j = parse(R"({"id": 1, "user": "u", "partition": "batch", "queue": "batch", "account": "x", "bank": "x"})");
  EXPECT_EQ(j.partitions, std::vector<std::string>{"batch"});
  EXPECT_EQ(j.account, "x");
  // null counts as not given.
  j = parse(R"({"id": 1, "user": "u", "partition": null, "queue": "q", "account": null, "project": "p"})");
  EXPECT_EQ(j.partitions, std::vector<std::string>{"q"});
  EXPECT_EQ(j.account, "p");
}

TEST(JobsJson, V2FieldErrorsNameLineAndKey) {
  expect_errors({
      {R"({"id": 1, "user": "u", "urgency": 32})", "jobs.jsonl:7: field 'urgency': 32 is out of range 0..31"},
      {R"({"id": 1, "user": "u", "urgency": -1})", "jobs.jsonl:7: field 'urgency': -1 is out of range 0..31"},
      {R"({"id": 1, "user": "u", "urgency": "high"})",
       "jobs.jsonl:7: field 'urgency': expected an integer, got a string"},
      {R"({"id": 1, "user": "u", "deadline": "tomorrow"})",
       "jobs.jsonl:7: field 'deadline': 'tomorrow' is not a time (seconds since the epoch or "
       "YYYY-MM-DDTHH:MM:SS[Z])"},
      {R"({"id": 1, "user": "u", "deadline": -5})",
       "jobs.jsonl:7: field 'deadline': -5 is out of range 0..1099511627776"},
      {R"({"id": 1, "user": "u", "deadline": true})",
       "jobs.jsonl:7: field 'deadline': expected seconds since the epoch or a time string, got a boolean"},
      {R"({"id": 1, "user": "u", "bypass_count": -1})",
       "jobs.jsonl:7: field 'bypass_count': -1 is out of range 0..4294967295"},
      {R"({"id": 1, "user": "u", "start_count": 1.5})",
       "jobs.jsonl:7: field 'start_count': expected an integer, got a real number"},
      {R"({"id": 1, "user": "u", "user_priority": 3000000000})",
       "jobs.jsonl:7: field 'user_priority': 3000000000 is out of range -2147483647..2147483647"},
      {R"({"id": 1, "user": "u", "soft_violation": 1})",
       "jobs.jsonl:7: field 'soft_violation': expected true or false, got an integer"},
      {R"({"id": 1, "user": "u", "blocked": "yes"})",
       "jobs.jsonl:7: field 'blocked': expected true or false, got a string"},
      {R"({"id": 1, "user": "u", "group": 5})", "jobs.jsonl:7: field 'group': expected a string, got an integer"},
      {R"({"id": 1, "user": "u", "attrs": ["a"]})",
       "jobs.jsonl:7: field 'attrs': expected an object of name: value, got an array"},
      {R"({"id": 1, "user": "u", "attrs": {"a": null}})",
       "jobs.jsonl:7: field 'attrs': 'a': expected a string, number or boolean, got null"},
      {R"({"id": 1, "user": "u", "attrs": {"a": {"b": 1}}})",
       "jobs.jsonl:7: field 'attrs': 'a': expected a string, number or boolean, got an object"},
      {R"({"id": 1, "user": "u", "attrs": {"": "x"}})", "jobs.jsonl:7: field 'attrs': empty name"},
      {R"({"id": 1, "user": "u", "partition": "a", "queue": "b"})",
       "jobs.jsonl:7: fields 'partition' and 'queue' disagree: 'a' vs 'b'"},
      {R"({"id": 1, "user": "u", "queue": 3})",
       "jobs.jsonl:7: field 'queue': expected a string or an array of strings, got an integer"},
      {R"({"id": 1, "user": "u", "account": "a", "bank": "b"})",
       "jobs.jsonl:7: fields 'account' and 'bank' disagree: 'a' vs 'b'"},
      {R"({"id": 1, "user": "u", "bank": "a", "project": "c"})",
       "jobs.jsonl:7: fields 'bank' and 'project' disagree: 'a' vs 'c'"},
      {R"({"id": 1, "user": "u", "project": 7})", "jobs.jsonl:7: field 'project': expected a string, got an integer"},
  });
}

}  // namespace

namespace {

// Grid Engine's job keys, by the names qsub users know (priority/gridengine).
TEST(JobsJson, GridEngineKeysBecomeFieldsAndAttributes) {
  JobSpec j = parse(R"({"id": 5, "user": "u", "project": "phys", "department": "hep", "posix_priority": -100,
    "job_share": 10, "override_tickets": 500, "slots": 16, "pe": "mpi 4-8", "urgency_slots": "min",
    "deadline": 1763800000, "requests": {"mem_free": "4G", "matlab": true}})");
  EXPECT_EQ(j.account, "phys");
  EXPECT_EQ(j.user_priority, -100);
  EXPECT_EQ(j.cpus, 16u);
  EXPECT_EQ(j.deadline, 1763800000);
  std::map<std::string, std::string> a(j.attrs.begin(), j.attrs.end());
  EXPECT_EQ(a["department"], "hep");
  EXPECT_EQ(a["job_share"], "10");
  EXPECT_EQ(a["override_tickets"], "500");
  EXPECT_EQ(a["pe"], "mpi 4-8");
  EXPECT_EQ(a["urgency_slots"], "min");
  EXPECT_EQ(a["requests.mem_free"], "4G");
  EXPECT_EQ(a["requests.matlab"], "true");
}

// pe_slots at the top level, like the other qsub fields (it was
// refused, or before the field check silently dropped: `-pe mpi 16-` with
// urgency_slots max then counted 4294967295 slots).
TEST(JobsJson, PeSlotsAtTheTopLevelIsAnAttribute) {
  JobSpec j = parse(R"({"id": 5, "user": "u", "pe": "mpi 16-", "urgency_slots": "max", "pe_slots": 64})");
  std::map<std::string, std::string> a(j.attrs.begin(), j.attrs.end());
  EXPECT_EQ(a["pe_slots"], "64");
  EXPECT_EQ(a["urgency_slots"], "max");
  expect_errors_containing({
      {R"({"id": 1, "user": "u", "pe_slots": 64, "attrs": {"pe_slots": "32"}})",
       "jobs.jsonl:7: field 'pe_slots' and attrs 'pe_slots' both given"},
      {R"({"id": 1, "user": "u", "requests": {"h_rt": 60}, "attrs": {"requests.h_rt": "60"}})",
       "field 'requests' and attrs 'requests.h_rt' both given"},
      {R"({"id": 1, "user": "u", "pe_slot": 64})", "did you mean 'pe_slots'?"},
  });
}

TEST(JobsJson, GridEngineKeysAreCheckedAndMustAgree) {
  expect_errors_containing({
      {R"({"id": 1, "user": "u", "posix_priority": 2000})", "posix_priority"},
      {R"({"id": 1, "user": "u", "posix_priority": 5, "user_priority": 6})", "disagree"},
      {R"({"id": 1, "user": "u", "slots": 4, "cpus": 8})", "disagree"},
      {R"({"id": 1, "user": "u", "requests": ["mem_free"]})", "requests"},
      {R"({"id": 1, "user": "u", "requests": {"a": [1]}})", "jobs.jsonl:7"},
  });
}

}  // namespace

// A field that is not a job field is an error naming the line and
// the nearest known field; the feed's own fields start with '_'.
TEST(JobsJson, MisspelledFieldsAreErrorsNamingTheNearestField) {
  const char* dir = std::getenv("MFPRIO_TEST_DATA");
  ASSERT_NE(dir, nullptr) << "MFPRIO_TEST_DATA not set";
  const std::string path = std::string(dir) + "/admins/typo-jobs.jsonl";
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "missing " << path;
  const mfprio::host::JobFile f = mfprio::host::read_job_stream(in, path);
  ASSERT_EQ(f.jobs.size(), 1u);
  EXPECT_EQ(f.jobs[0].id, 101u);
  ASSERT_EQ(f.errors.size(), 3u);
  EXPECT_EQ(f.errors[0], path + ":2: field 'partiton' is not a job field (did you mean 'partition'? fields of your "
                                "own start with '_')");
  EXPECT_NE(f.errors[1].find(path + ":3: field 'acount' is not a job field (did you mean 'account'?"),
            std::string::npos) << f.errors[1];
  EXPECT_NE(f.errors[2].find(path + ":4: field 'time_limt' is not a job field (did you mean 'time_limit'?"),
            std::string::npos) << f.errors[2];
  // The same line without the typo, and a field of the feed's own, are read.
  EXPECT_EQ(parse(R"({"id": 3, "user": "c", "account": "bio", "_site_comment": "x"})").account, "bio");
}
