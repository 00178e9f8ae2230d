// swf.hpp - reading a Standard Workload Format trace (the Parallel Workloads
// Archive's job-log format), plain or gzip-compressed, for `mfprio-host replay`.
//
// Format: lines starting with ';' are header comments ("; MaxProcs: 240");
// every other non-blank line is one job of exactly 18 whitespace-separated
// integer fields (field 6, average CPU time, may be fractional), -1 meaning
// unknown.  read_swf validates the whole file (or its first `limit` job
// lines) before returning: a bad record throws SwfError
// "FILE:LINE: field N (name): why", so a caller never acts on half a trace.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "bounded_read.hpp"

namespace mfprio::host {

struct SwfError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One job record: the fields replay uses (SWF field numbers in comments).
struct SwfJob {
  uint32_t line = 0;
  int64_t number = 0;        // 1  job number
  int64_t submit = 0;        // 2  submit time, seconds from the log start
  int64_t wait = -1;         // 3  wait time
  int64_t runtime = -1;      // 4  run time
  int64_t procs = -1;        // 5  allocated processors
  int64_t req_procs = -1;    // 8  requested processors
  int64_t req_time = -1;     // 9  requested time (s)
  int64_t status = -1;       // 11 1 completed, 0 failed, 5 cancelled
  int64_t user = -1;         // 12 user id
  int64_t group = -1;        // 13 group id
  int64_t queue = -1;        // 15 queue number
  int64_t partition = -1;    // 16 partition number
};

struct SwfTrace {
  std::string file;
  // From the header comments; -1 when absent.
  int64_t max_procs = -1, max_nodes = -1, unix_start_time = -1;
  std::vector<SwfJob> jobs;
  uint64_t records = 0;  // job lines read (== jobs.size())
  bool truncated = false;  // stopped at `limit`
};

// Reads `path` (gzip detected by its magic bytes, not by the name).
// limit: stop after that many job lines (0 = all).  Throws SwfError naming
// the file (cannot open / not readable / corrupt gzip / over `bounds`, which
// apply to the decompressed bytes: bounded_read.hpp) or FILE:LINE.
SwfTrace read_swf(const std::string& path, uint64_t limit = 0, const ReadBounds& bounds = kTraceBounds);

// Parses text as the body of a trace named `file` (for tests).
SwfTrace parse_swf_text(const std::string& text, const std::string& file, uint64_t limit = 0);

// SWF field name by 1-based number ("submit time" for 2).
const char* swf_field_name(int field);

}  // namespace mfprio::host
