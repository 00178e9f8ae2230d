// fuzz_jobs_json.cpp - libFuzzer: the host's job feed (host-shim/jobs_json:
// read_job_stream, one JSON object a line, then expand_records).  Compiled
// from the source file so it does not depend on the rest of host-shim.
#include <sstream>
#include <string>

#include "jobs_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    mfprio::host::JobFile f = mfprio::host::read_job_stream(in, "fuzz.jsonl");
    (void)mfprio::host::expand_records(f.jobs);
  } catch (const std::exception&) {
    // JobParseError for a file-level problem is allowed; anything else is
    // still not a crash (libFuzzer would report an uncaught one).
  }
  return 0;
}
