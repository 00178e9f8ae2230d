// swf.cpp - see swf.hpp.  zlib's gzFile reads gzip and plain files alike
// (it looks at the magic bytes), so one reader serves both.
#include "swf.hpp"

#include <zlib.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <strings.h>

namespace mfprio::host {
namespace {

constexpr int kFields = 18;

const char* const kFieldNames[kFields] = {
    "job number",          "submit time",        "wait time",          "run time",
    "allocated processors", "average CPU time",  "used memory",        "requested processors",
    "requested time",      "requested memory",   "status",             "user id",
    "group id",            "executable number",  "queue number",       "partition number",
    "preceding job",       "think time"};

[[noreturn]] void fail(const std::string& file, uint32_t line, const std::string& msg) {
  throw SwfError(file + ":" + std::to_string(line) + ": " + msg);
}

[[noreturn]] void fail_field(const std::string& file, uint32_t line, int field, const std::string& msg) {
  fail(file, line, "field " + std::to_string(field) + " (" + kFieldNames[field - 1] + "): " + msg);
}

bool parse_int(const std::string& s, int64_t* out) {
  if (s.empty() || s.size() > 18) return false;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  int64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = s[0] == '-' ? -v : v;
  return true;
}

bool parse_real(const std::string& s) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return errno == 0 && end == s.c_str() + s.size();
}

class Builder {
 public:
  Builder(const std::string& file, uint64_t limit) : limit_(limit) { t_.file = file; }

  // Returns false once the limit is reached (the caller stops reading).
  bool line(const std::string& text, uint32_t n) {
    if (text.find('\0') != std::string::npos) fail(t_.file, n, "NUL byte in the line (not a text trace?)");
    size_t p = text.find_first_not_of(" \t\r\n\v\f");
    if (p == std::string::npos) return true;  // blank
    if (text[p] == ';') {
      header(text.substr(p + 1), n);
      return true;
    }
    if (limit_ && t_.records >= limit_) {
      t_.truncated = true;
      return false;
    }
    job(text, n);
    return true;
  }

  SwfTrace take() { return std::move(t_); }

 private:
  void header(const std::string& body, uint32_t n) {
    const size_t colon = body.find(':');
    if (colon == std::string::npos) return;
    std::string key = body.substr(0, colon), value = body.substr(colon + 1);
    auto trim = [](std::string& s) {
      const size_t a = s.find_first_not_of(" \t\r\n");
      const size_t b = s.find_last_not_of(" \t\r\n");
      s = a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
    };
    trim(key);
    trim(value);
    int64_t* slot = nullptr;
    if (strcasecmp(key.c_str(), "MaxProcs") == 0) slot = &t_.max_procs;
    else if (strcasecmp(key.c_str(), "MaxNodes") == 0) slot = &t_.max_nodes;
    else if (strcasecmp(key.c_str(), "UnixStartTime") == 0) slot = &t_.unix_start_time;
    if (!slot) return;  // other header lines are informative only
    int64_t v = 0;
    if (!parse_int(value, &v) || v < 0) fail(t_.file, n, "header " + key + ": '" + value + "' is not a non-negative integer");
    *slot = v;
  }

  void job(const std::string& text, uint32_t n) {
    std::istringstream in(text);
    std::string tok[kFields + 1];
    int count = 0;
    std::string s;
    while (in >> s) {
      if (count <= kFields) tok[count] = s;
      ++count;
    }
    if (count != kFields)
      fail(t_.file, n, "expected " + std::to_string(kFields) + " fields, found " + std::to_string(count));
    int64_t v[kFields];
    for (int f = 0; f < kFields; ++f) {
      if (parse_int(tok[f], &v[f])) {
        if (v[f] < -1) fail_field(t_.file, n, f + 1, std::to_string(v[f]) + " is negative (-1 means unknown)");
        continue;
      }
      // Average CPU time and used memory are fractional in some logs; replay does not use them.
      if ((f == 5 || f == 6) && parse_real(tok[f])) {
        v[f] = -1;
        continue;
      }
      fail_field(t_.file, n, f + 1, "'" + tok[f] + "' is not an integer");
    }
    SwfJob j;
    j.line = n;
    j.number = v[0];
    j.submit = v[1];
    j.wait = v[2];
    j.runtime = v[3];
    j.procs = v[4];
    j.req_procs = v[7];
    j.req_time = v[8];
    j.status = v[10];
    j.user = v[11];
    j.group = v[12];
    j.queue = v[14];
    j.partition = v[15];
    if (j.number < 1) fail_field(t_.file, n, 1, "must be a positive job number");
    if (j.submit < 0) fail_field(t_.file, n, 2, "unknown (-1): a job needs a submit time");
    t_.jobs.push_back(j);
    ++t_.records;
  }

  SwfTrace t_;
  uint64_t limit_;
};

struct GzCloser {
  void operator()(gzFile_s* f) const {
    if (f) gzclose(f);
  }
};

}  // namespace

const char* swf_field_name(int field) { return field >= 1 && field <= kFields ? kFieldNames[field - 1] : "?"; }

SwfTrace parse_swf_text(const std::string& text, const std::string& file, uint64_t limit) {
  Builder b(file, limit);
  std::istringstream in(text);
  std::string l;
  uint32_t n = 0;
  while (std::getline(in, l))
    if (!b.line(l, ++n)) break;
  return b.take();
}

SwfTrace read_swf(const std::string& path, uint64_t limit, const ReadBounds& bounds) {
  errno = 0;
  std::unique_ptr<gzFile_s, GzCloser> f(gzopen(path.c_str(), "rb"));
  if (!f) throw SwfError("cannot open trace '" + path + "': " + (errno ? std::strerror(errno) : "out of memory"));
  gzbuffer(f.get(), 1 << 17);
  Builder b(path, limit);
  std::string line;
  char buf[8192];
  uint32_t n = 0;
  uint64_t total = 0;  // bytes read (decompressed): a gzip bomb or a sparse file stops at the bound
  for (;;) {
    // gzgets stops after '\n' or a full buffer and writes one '\0' after what
    // it read; a NUL byte in the data would hide the rest from strlen.  Fill
    // the buffer first, so the last '\0' is the terminator and NULs before it
    // are data (the line check reports them).
    std::memset(buf, '\n', sizeof buf);
    const char* got = gzgets(f.get(), buf, sizeof buf);
    if (!got) {
      int err = 0;
      const char* msg = gzerror(f.get(), &err);
      if (err != Z_OK && err != Z_BUF_ERROR)
        throw SwfError("cannot read trace '" + path + "': " + (err == Z_ERRNO ? std::strerror(errno) : msg));
      if (err == Z_BUF_ERROR) throw SwfError("cannot read trace '" + path + "': truncated gzip data");
      if (!line.empty() && !b.line(line, ++n)) break;
      break;
    }
    const void* end = memrchr(buf, '\0', sizeof buf);
    const size_t got_len = end ? static_cast<size_t>(static_cast<const char*>(end) - buf) : std::strlen(buf);
    line.append(buf, got_len);
    total += got_len;
    try {
      check_total_bound(path, total, bounds);
      check_line_bound(path, n + 1, line.size() - (!line.empty() && line.back() == '\n'), bounds);
    } catch (const ReadError& e) {
      throw SwfError(e.what());
    }
    if (line.empty() || line.back() != '\n') continue;  // longer than the buffer: keep reading
    if (n == 0) strip_utf8_bom(line);
    if (!b.line(line, ++n)) break;
    line.clear();
  }
  return b.take();
}

}  // namespace mfprio::host
