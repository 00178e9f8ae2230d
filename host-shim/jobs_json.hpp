// jobs_json.hpp - the job feed: one JSON object per line (JSON Lines), read
// with jansson, checked field by field, turned into mfprio_job_t records
// (one per partition).  The format is mfprio-host(1)'s JOB FILE.
//
// Call order: parse_job_line / read_job_file -> expand_records -> give
// records[i].job to the plugin.  A JobRecord points into its JobSpec, so the
// specs must outlive the records and must not be moved after expanding.
#pragma once

#include <mfprio/mfprio.h>

#include <cstdint>
#include <istream>
#include <stdexcept>
#include <string>
#include <vector>

namespace mfprio::host {

// "file:line: message"
struct JobParseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct JobSpec {
  std::string file;
  uint32_t line = 0;
  uint64_t id = 0;
  std::string name;                       // the job's name (views print it)
  std::string user, group, account, qos;  // account: also from "bank" or "project"
  std::vector<std::string> partitions;  // empty: the default partition ("queue" too)
  uint32_t state = MFPRIO_JOB_PENDING;
  int64_t submit = 0, eligible = 0, start = 0;
  int64_t end = 0;  // when the job ends (0: not known); read by `loop` only
  int64_t deadline = 0;  // 0: none
  bool eligible_given = false;
  uint32_t nodes = 1, cpus = 1;
  uint64_t mem_mb = 0;
  uint32_t time_limit_min = 0;  // 0: unlimited
  int32_t nice = 0;
  bool nice_admin = false, dependent = false;
  int32_t site_factor = 0;
  uint32_t prev_priority = 0;
  uint32_t bypass_count = 0, start_count = 0;
  int32_t user_priority = 0;
  bool user_priority_admin = false;
  bool urgency_given = false;  // sets MFPRIO_JOBF_URGENCY
  uint8_t urgency = MFPRIO_URGENCY_DEFAULT;
  bool soft_violation = false, blocked = false;
  std::vector<std::pair<std::string, std::string>> attrs;  // name -> value, in file order
  std::vector<std::string> tres_names;  // "gres/gpu", ...
  std::vector<double> tres_counts;
};

// One job in one partition, ready for the plugin.  job's strings point
// into *spec, job.tres into `tres` and job.attrs into `attrs` (heap buffers
// that survive moves of the record), so records may be moved but not copied.
struct JobRecord {
  JobRecord() = default;
  JobRecord(JobRecord&&) = default;
  JobRecord& operator=(JobRecord&&) = default;
  JobRecord(const JobRecord&) = delete;
  JobRecord& operator=(const JobRecord&) = delete;

  const JobSpec* spec = nullptr;
  const char* partition = "";  // "" = default
  std::vector<mfprio_tres_t> tres;
  std::vector<mfprio_attr_t> attrs;
  mfprio_job_t job{};
};

// Parses one line (must hold a JSON object).  Throws JobParseError
// "file:line: ..." naming the field.
JobSpec parse_job_line(const std::string& text, const std::string& file, uint32_t line);

struct JobFile {
  std::vector<JobSpec> jobs;
  std::vector<std::string> errors;  // one "file:line: ..." per bad line
};

// Reads every non-blank line; bad lines are reported in errors and skipped.
JobFile read_job_stream(std::istream& in, const std::string& file);
// The same for a file; a file that cannot be opened throws JobParseError.
JobFile read_job_file(const std::string& path);

// One record per (job, partition), in job order.
std::vector<JobRecord> expand_records(const std::vector<JobSpec>& jobs);

// Submission order, as a controller creates jobs: earlier submit first, ties
// by job id (priority/basic's FIFO numbering and whole-queue passes see jobs
// in this order).
inline bool submitted_before(const JobSpec& x, const JobSpec& y) {
  return x.submit != y.submit ? x.submit < y.submit : x.id < y.id;
}

const char* state_name(uint32_t state);

// "8G" -> 8192 (MB); suffixes K M G T (powers of 1024), none = MB.
bool parse_mem_mb(const std::string& s, uint64_t* mb);

}  // namespace mfprio::host
