// jobs_json.cpp - see jobs_json.hpp.  Every field is type-checked; a wrong
// type or an out-of-range value names the file, line and field.  A field
// that is not a job field is an error naming the nearest known one (a
// misspelled `partiton` would otherwise silently drop the partition); a
// feed's own extra data goes in fields whose name starts with '_'.
// Duplicate fields are rejected (JSON_REJECT_DUPLICATES) because which one
// wins would be a guess.
#include "jobs_json.hpp"

#include <timestr.hpp>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>

#include "bounded_read.hpp"
#include "cli.hpp"
#include "json_util.hpp"
#include "strings.hpp"
#include "slurm_conf.hpp"  // edit_distance, the one "did you mean" measure

namespace mfprio::host {
namespace {

class LineParser {
 public:
  LineParser(const std::string& file, uint32_t line) : file_(file), line_(line) {}

  [[noreturn]] void fail(const std::string& msg) const {
    throw JobParseError(file_ + ":" + std::to_string(line_) + ": " + msg);
  }
  [[noreturn]] void fail_field(const char* field, const std::string& msg) const {
    fail(std::string("field '") + field + "': " + msg);
  }

  static const char* type_of(const json_t* v) {
    switch (json_typeof(v)) {
      case JSON_OBJECT: return "an object";
      case JSON_ARRAY: return "an array";
      case JSON_STRING: return "a string";
      case JSON_INTEGER: return "an integer";
      case JSON_REAL: return "a real number";
      case JSON_TRUE:
      case JSON_FALSE: return "a boolean";
      case JSON_NULL: return "null";
    }
    return "?";
  }

  int64_t integer(const char* field, const json_t* v, int64_t lo, int64_t hi) const {
    if (!json_is_integer(v)) fail_field(field, std::string("expected an integer, got ") + type_of(v));
    const json_int_t x = json_integer_value(v);
    if (x < lo || x > hi)
      fail_field(field, std::to_string(x) + " is out of range " + std::to_string(lo) + ".." + std::to_string(hi));
    return static_cast<int64_t>(x);
  }

  std::string string(const char* field, const json_t* v) const {
    if (json_is_null(v)) return std::string();
    if (!json_is_string(v)) fail_field(field, std::string("expected a string, got ") + type_of(v));
    return std::string(json_string_value(v), json_string_length(v));
  }

  bool boolean(const char* field, const json_t* v) const {
    if (!json_is_boolean(v)) fail_field(field, std::string("expected true or false, got ") + type_of(v));
    return json_is_true(v);
  }

  std::vector<std::string> partitions(const json_t* v, const char* field = "partition") const {
    std::vector<std::string> out;
    if (json_is_null(v)) return out;
    if (json_is_string(v)) {
      const std::string s = json_string_value(v);
      if (s.empty()) return out;
      size_t pos = 0;
      while (pos <= s.size()) {
        size_t comma = s.find(',', pos);
        if (comma == std::string::npos) comma = s.size();
        std::string p = trim_space(s.substr(pos, comma - pos));
        if (p.empty()) fail_field(field, "empty partition name in '" + s + "'");
        out.push_back(std::move(p));
        pos = comma + 1;
      }
    } else if (json_is_array(v)) {
      size_t i;
      const json_t* e;
      json_array_foreach(v, i, e) {
        if (!json_is_string(e))
          fail_field(field, "element " + std::to_string(i) + ": expected a string, got " + type_of(e));
        std::string p = json_string_value(e);
        if (p.empty() || p.find(',') != std::string::npos)
          fail_field(field, "element " + std::to_string(i) + ": '" + p + "' is not a partition name");
        out.push_back(std::move(p));
      }
    } else {
      fail_field(field, std::string("expected a string or an array of strings, got ") + type_of(v));
    }
    for (size_t i = 0; i < out.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (out[i] == out[j]) fail_field(field, "partition '" + out[i] + "' listed twice");
    return out;
  }

  uint32_t state(const json_t* v) const {
    const std::string s = string("state", v);
    static const struct {
      const char* name;
      uint32_t value;
    } kStates[] = {{"pending", MFPRIO_JOB_PENDING},     {"running", MFPRIO_JOB_RUNNING},
                   {"suspended", MFPRIO_JOB_SUSPENDED}, {"held", MFPRIO_JOB_HELD},
                   {"completed", MFPRIO_JOB_COMPLETED}};
    for (const auto& st : kStates)
      if (strcasecmp(s.c_str(), st.name) == 0) return st.value;
    fail_field("state", "'" + s + "' is not one of pending, running, suspended, held, completed");
  }

  uint64_t mem(const json_t* v) const {
    if (json_is_integer(v))
      return static_cast<uint64_t>(integer("mem", v, 0, std::numeric_limits<int64_t>::max()));
    if (!json_is_string(v)) fail_field("mem", std::string("expected MB as an integer or a string like \"8G\", got ") + type_of(v));
    uint64_t mb = 0;
    if (!parse_mem_mb(json_string_value(v), &mb))
      fail_field("mem", std::string("'") + json_string_value(v) + "' is not a size (a number with K, M, G or T)");
    return mb;
  }

  uint32_t time_limit(const json_t* v) const {
    if (json_is_integer(v)) {
      const int64_t m = integer("time_limit", v, -1, std::numeric_limits<uint32_t>::max());
      return m < 0 ? 0 : static_cast<uint32_t>(m);
    }
    if (!json_is_string(v))
      fail_field("time_limit", std::string("expected minutes or a time string, got ") + type_of(v));
    int64_t secs = 0;
    std::string why;
    if (!mfprio::parse_time_string(json_string_value(v), &secs, &why)) fail_field("time_limit", why);
    if (secs == mfprio::kTimeInfinite) return 0;
    const int64_t minutes = (secs + 59) / 60;  // a partial minute counts as one
    if (minutes > std::numeric_limits<uint32_t>::max()) fail_field("time_limit", "too long");
    return static_cast<uint32_t>(minutes);
  }

  // gres: {"gpu": 2} or "gpu:2,mps:100" or "gpu:a100:2" -> "gres/gpu".
  void gres(const json_t* v, JobSpec* job) const {
    if (json_is_null(v)) return;
    if (json_is_object(v)) {
      const char* key;
      const json_t* val;
      json_object_foreach(const_cast<json_t*>(v), key, val) {
        if (!json_is_integer(val) || json_integer_value(val) < 0)
          fail_field("gres", std::string("'") + key + "': expected a non-negative integer count");
        add_tres(gres_name(key), static_cast<double>(json_integer_value(val)), job);
      }
      return;
    }
    if (!json_is_string(v))
      fail_field("gres", std::string("expected an object like {\"gpu\": 2} or a string like \"gpu:2\", got ") + type_of(v));
    const std::string s = json_string_value(v);
    size_t pos = 0;
    while (!s.empty() && pos <= s.size()) {
      size_t comma = s.find(',', pos);
      if (comma == std::string::npos) comma = s.size();
      const std::string item = trim_space(s.substr(pos, comma - pos));
      pos = comma + 1;
      if (item.empty()) fail_field("gres", "empty item in '" + s + "'");
      const size_t c1 = item.find(':');
      double count = 1;
      if (c1 != std::string::npos) {
        const std::string num = item.substr(item.rfind(':') + 1);
        char* end = nullptr;
        errno = 0;
        const unsigned long long n = std::strtoull(num.c_str(), &end, 10);
        if (num.empty() || *end || errno || !std::isdigit(static_cast<unsigned char>(num[0])))
          fail_field("gres", "'" + item + "' is not name[:type]:count");
        count = static_cast<double>(n);
      }
      add_tres(gres_name(item.substr(0, c1)), count, job);
    }
  }

  static std::string gres_name(const std::string& n) { return n.rfind("gres/", 0) == 0 ? n : "gres/" + n; }

  void add_tres(const std::string& name, double count, JobSpec* job) const {
    if (name.empty() || name == "gres/") fail_field("gres", "empty name");
    for (size_t i = 0; i < job->tres_names.size(); ++i)
      if (job->tres_names[i] == name) fail("'" + name + "' requested twice");
    job->tres_names.push_back(name);
    job->tres_counts.push_back(count);
  }

  // tres: {"license/matlab": 1, ...} extra TRES passed as is.
  void tres(const json_t* v, JobSpec* job) const {
    if (json_is_null(v)) return;
    if (!json_is_object(v)) fail_field("tres", std::string("expected an object of name: count, got ") + type_of(v));
    const char* key;
    const json_t* val;
    json_object_foreach(const_cast<json_t*>(v), key, val) {
      if (!json_is_number(val) || json_number_value(val) < 0 || !std::isfinite(json_number_value(val)))
        fail_field("tres", std::string("'") + key + "': expected a non-negative number");
      if (!*key) fail_field("tres", "empty name");
      add_tres(key, json_number_value(val), job);
    }
  }

  // deadline: seconds since the epoch, or "YYYY-MM-DDTHH:MM:SS[Z]" (UTC).
  int64_t time_point(const char* field, const json_t* v, int64_t max) const {
    if (json_is_integer(v)) return integer(field, v, 0, max);
    if (!json_is_string(v))
      fail_field(field, std::string("expected seconds since the epoch or a time string, got ") + type_of(v));
    int64_t t = 0;
    if (!parse_time_point(json_string_value(v), &t) || t < 0 || t > max)
      fail_field(field, std::string("'") + json_string_value(v) +
                            "' is not a time (seconds since the epoch or YYYY-MM-DDTHH:MM:SS[Z])");
    return t;
  }

  // attrs: {"name": "value" | number | boolean, ...} -> strings.
  void attrs(const json_t* v, JobSpec* job) const {
    if (json_is_null(v)) return;
    if (!json_is_object(v)) fail_field("attrs", std::string("expected an object of name: value, got ") + type_of(v));
    const char* key;
    const json_t* val;
    json_object_foreach(const_cast<json_t*>(v), key, val) {
      if (!*key) fail_field("attrs", "empty name");
      std::string text;
      if (json_is_string(val)) {
        text.assign(json_string_value(val), json_string_length(val));
        if (text.find('\0') != std::string::npos) fail_field("attrs", std::string("'") + key + "': NUL in the value");
      } else if (json_is_integer(val)) {
        text = std::to_string(json_integer_value(val));
      } else if (json_is_real(val)) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.15g", json_real_value(val));
        text = buf;
      } else if (json_is_boolean(val)) {
        text = json_is_true(val) ? "true" : "false";
      } else {
        fail_field("attrs", std::string("'") + key + "': expected a string, number or boolean, got " + type_of(val));
      }
      job->attrs.emplace_back(key, std::move(text));
    }
  }

 private:
  const std::string& file_;
  uint32_t line_;
};

}  // namespace

const char* state_name(uint32_t state) {
  switch (state) {
    case MFPRIO_JOB_PENDING: return "pending";
    case MFPRIO_JOB_RUNNING: return "running";
    case MFPRIO_JOB_SUSPENDED: return "suspended";
    case MFPRIO_JOB_HELD: return "held";
    case MFPRIO_JOB_COMPLETED: return "completed";
    default: return "unknown";
  }
}

bool parse_mem_mb(const std::string& s, uint64_t* mb) {
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (errno || !std::isfinite(v) || v < 0) return false;
  std::string suffix(end);
  double scale = 1;  // MB
  if (suffix.empty() || suffix == "M" || suffix == "m" || suffix == "MB" || suffix == "mb") scale = 1;
  else if (suffix == "K" || suffix == "k" || suffix == "KB" || suffix == "kb") scale = 1.0 / 1024;
  else if (suffix == "G" || suffix == "g" || suffix == "GB" || suffix == "gb") scale = 1024;
  else if (suffix == "T" || suffix == "t" || suffix == "TB" || suffix == "tb") scale = 1024.0 * 1024;
  else return false;
  const double r = std::ceil(v * scale);
  if (r > 1.8e19) return false;
  *mb = static_cast<uint64_t>(r);
  return true;
}

// Every field parse_job_line reads.
constexpr const char* kJobFields[] = {
    "id", "name", "user", "group", "account", "bank", "project", "qos", "partition", "queue", "state", "submit",
    "eligible", "start", "end", "nodes", "cpus", "mem", "gres", "tres", "time_limit", "nice", "nice_admin",
    "site_factor", "prev_priority", "dependent", "deadline", "bypass_count", "start_count", "user_priority",
    "user_priority_admin", "urgency", "soft_violation", "blocked", "attrs", "posix_priority", "slots",
    "department", "job_share", "override_tickets", "pe", "urgency_slots", "pe_slots", "requests"};

void check_field_names(const json_t* o, const LineParser& p) {
  const char* key;
  const json_t* val;
  json_object_foreach(const_cast<json_t*>(o), key, val) {
    (void)val;
    if (key[0] == '_') continue;  // the feed's own data
    const char* best = nullptr;
    size_t best_d = SIZE_MAX;
    for (const char* k : kJobFields) {
      if (std::strcmp(key, k) == 0) {
        best = nullptr;
        best_d = 0;
        break;
      }
      const size_t d = edit_distance(key, k);
      if (d < best_d) {
        best_d = d;
        best = k;
      }
    }
    if (best_d == 0) continue;
    p.fail(std::string("field '") + key + "' is not a job field (did you mean '" + best +
           "'? fields of your own start with '_')");
  }
}

JobSpec parse_job_line(const std::string& text, const std::string& file, uint32_t line) {
  LineParser p(file, line);
  json_error_t err;
  JsonPtr root(json_loadb(text.data(), text.size(), JSON_REJECT_DUPLICATES, &err));
  if (!root) p.fail(std::string("invalid JSON: ") + err.text + " (column " + std::to_string(err.column) + ")");
  if (!json_is_object(root.get())) p.fail(std::string("expected a JSON object, got ") + LineParser::type_of(root.get()));

  JobSpec j;
  j.file = file;
  j.line = line;
  const json_t* o = root.get();
  auto get = [&](const char* k) -> const json_t* { return json_object_get(o, k); };
  check_field_names(o, p);

  const json_t* v = get("id");
  if (!v) p.fail("missing field 'id'");
  j.id = static_cast<uint64_t>(p.integer("id", v, 1, std::numeric_limits<int64_t>::max()));
  v = get("user");
  if (!v) p.fail("job " + std::to_string(j.id) + ": missing field 'user'");
  j.user = p.string("user", v);
  if (j.user.empty()) p.fail_field("user", "must not be empty");
  if ((v = get("group"))) j.group = p.string("group", v);
  if ((v = get("name"))) j.name = p.string("name", v);  // views only (no family reads it)
  // account, or its names in other families (Flux bank, Grid Engine project): all given must agree.
  const char* account_from = nullptr;
  for (const char* key : {"account", "bank", "project"}) {
    if (!(v = get(key)) || json_is_null(v)) continue;
    const std::string a = p.string(key, v);
    if (account_from && a != j.account)
      p.fail(std::string("fields '") + account_from + "' and '" + key + "' disagree: '" + j.account + "' vs '" + a +
             "'");
    if (!account_from) j.account = a;
    account_from = key;
  }
  if ((v = get("qos"))) j.qos = p.string("qos", v);
  if ((v = get("partition"))) j.partitions = p.partitions(v);
  if ((v = get("queue")) && !json_is_null(v)) {  // Maui/Moab class, Grid Engine or Flux queue
    std::vector<std::string> q = p.partitions(v, "queue");
    const json_t* part = get("partition");
    if (part && !json_is_null(part) && q != j.partitions) {
      auto join = [](const std::vector<std::string>& l) {
        std::string s;
        for (const std::string& x : l) s += (s.empty() ? "" : ",") + x;
        return s;
      };
      p.fail("fields 'partition' and 'queue' disagree: '" + join(j.partitions) + "' vs '" + join(q) + "'");
    }
    j.partitions = std::move(q);
  }
  if ((v = get("state"))) j.state = p.state(v);
  constexpr int64_t kMaxTime = int64_t{1} << 40;
  if ((v = get("submit"))) j.submit = p.integer("submit", v, 0, kMaxTime);
  if ((v = get("eligible"))) {
    j.eligible = p.integer("eligible", v, 0, kMaxTime);
    j.eligible_given = true;
  }
  if ((v = get("start"))) j.start = p.integer("start", v, 0, kMaxTime);
  if ((v = get("end"))) j.end = p.integer("end", v, 0, kMaxTime);
  constexpr int64_t kU32 = std::numeric_limits<uint32_t>::max();
  constexpr int64_t kI32 = std::numeric_limits<int32_t>::max();
  if ((v = get("nodes"))) j.nodes = static_cast<uint32_t>(p.integer("nodes", v, 1, kU32));
  if ((v = get("cpus"))) j.cpus = static_cast<uint32_t>(p.integer("cpus", v, 1, kU32));
  if ((v = get("mem"))) j.mem_mb = p.mem(v);
  if ((v = get("gres"))) p.gres(v, &j);
  if ((v = get("tres"))) p.tres(v, &j);
  if ((v = get("time_limit"))) j.time_limit_min = p.time_limit(v);
  if ((v = get("nice"))) j.nice = static_cast<int32_t>(p.integer("nice", v, -kI32, kI32));
  if ((v = get("nice_admin"))) j.nice_admin = p.boolean("nice_admin", v);
  if ((v = get("site_factor"))) j.site_factor = static_cast<int32_t>(p.integer("site_factor", v, -kI32, kI32));
  if ((v = get("prev_priority"))) j.prev_priority = static_cast<uint32_t>(p.integer("prev_priority", v, 0, kU32));
  if ((v = get("dependent"))) j.dependent = p.boolean("dependent", v);
  if ((v = get("deadline"))) j.deadline = p.time_point("deadline", v, kMaxTime);
  if ((v = get("bypass_count"))) j.bypass_count = static_cast<uint32_t>(p.integer("bypass_count", v, 0, kU32));
  if ((v = get("start_count"))) j.start_count = static_cast<uint32_t>(p.integer("start_count", v, 0, kU32));
  if ((v = get("user_priority")))
    j.user_priority = static_cast<int32_t>(p.integer("user_priority", v, -kI32, kI32));
  if ((v = get("user_priority_admin"))) j.user_priority_admin = p.boolean("user_priority_admin", v);
  if ((v = get("urgency"))) {
    j.urgency = static_cast<uint8_t>(p.integer("urgency", v, MFPRIO_URGENCY_HOLD, MFPRIO_URGENCY_EXPEDITE));
    j.urgency_given = true;
  }
  if ((v = get("soft_violation"))) j.soft_violation = p.boolean("soft_violation", v);
  if ((v = get("blocked"))) j.blocked = p.boolean("blocked", v);
  if ((v = get("attrs"))) p.attrs(v, &j);

  // Grid Engine's own names (priority/gridengine): posix_priority is the user
  // priority, slots the CPU count; department, job_share, override_tickets,
  // pe ("mpi 4-8"), urgency_slots and pe_slots are attributes of those names
  // (given also inside attrs: an error); requests {"mem_free": "4G",
  // "matlab": true} become attributes "requests.<complex>".
  if ((v = get("posix_priority"))) {
    const auto pp = static_cast<int32_t>(p.integer("posix_priority", v, -1023, 1024));
    if (get("user_priority") && pp != j.user_priority)
      p.fail("fields 'user_priority' and 'posix_priority' disagree");
    j.user_priority = pp;
  }
  if ((v = get("slots"))) {
    const auto slots = static_cast<uint32_t>(p.integer("slots", v, 1, kU32));
    if (get("cpus") && slots != j.cpus) p.fail("fields 'cpus' and 'slots' disagree");
    j.cpus = slots;
  }
  {
    std::unique_ptr<json_t, decltype(&json_decref)> extra(json_object(), json_decref);
    for (const char* key : {"department", "job_share", "override_tickets", "pe", "urgency_slots", "pe_slots"})
      if ((v = get(key)) && !json_is_null(v)) json_object_set(extra.get(), key, const_cast<json_t*>(v));
    if ((v = get("requests")) && !json_is_null(v)) {
      if (!json_is_object(v)) p.fail_field("requests", std::string("expected an object of complex: value, got ") +
                                                           LineParser::type_of(v));
      const char* key;
      const json_t* val;
      json_object_foreach(const_cast<json_t*>(v), key, val) {
        if (!*key) p.fail_field("requests", "empty complex name");
        json_object_set(extra.get(), (std::string("requests.") + key).c_str(), const_cast<json_t*>(val));
      }
    }
    const char* key;
    const json_t* val;
    json_object_foreach(extra.get(), key, val) {
      (void)val;
      for (const auto& attr : j.attrs)
        if (attr.first == key)
          p.fail(std::string("field '") + (std::strncmp(key, "requests.", 9) == 0 ? "requests" : key) +
                 "' and attrs '" + key + "' both given (one place, please)");
    }
    if (json_object_size(extra.get())) p.attrs(extra.get(), &j);
  }

  if (!j.eligible_given)  // eligible at submit unless something holds it back
    j.eligible = (j.state == MFPRIO_JOB_HELD || j.dependent) ? 0 : j.submit;
  return j;
}

JobFile read_job_stream(std::istream& in, const std::string& file) {
  JobFile out;
  std::string text;
  uint32_t line = 0;
  while (std::getline(in, text)) {
    ++line;
    bool blank = true;
    for (char c : text)
      if (!std::isspace(static_cast<unsigned char>(c))) blank = false;
    if (blank) continue;
    try {
      out.jobs.push_back(parse_job_line(text, file, line));
    } catch (const JobParseError& e) {
      out.errors.push_back(e.what());
    }
  }
  return out;
}

JobFile read_job_file(const std::string& path) {
  std::string text;
  try {
    text = read_bounded(path, kImportBounds);
  } catch (const ReadError& e) {
    throw JobParseError(std::string("job file ") + e.what());
  }
  std::istringstream in(text);
  return read_job_stream(in, path);
}

std::vector<JobRecord> expand_records(const std::vector<JobSpec>& jobs) {
  std::vector<JobRecord> out;
  for (const JobSpec& s : jobs) {
    const size_t n = s.partitions.empty() ? 1 : s.partitions.size();
    for (size_t i = 0; i < n; ++i) {
      JobRecord r;
      r.spec = &s;
      r.partition = s.partitions.empty() ? "" : s.partitions[i].c_str();
      out.push_back(std::move(r));
    }
  }
  // Pointers are taken only now that `out` no longer reallocates.
  for (JobRecord& r : out) {
    const JobSpec& s = *r.spec;
    for (size_t i = 0; i < s.tres_names.size(); ++i)
      r.tres.push_back(mfprio_tres_t{s.tres_names[i].c_str(), s.tres_counts[i]});
    for (const auto& [name, value] : s.attrs) r.attrs.push_back(mfprio_attr_t{name.c_str(), value.c_str()});
    mfprio_job_t& j = r.job;
    j = mfprio_job_t{};
    j.struct_size = sizeof(mfprio_job_t);
    j.state = s.state;
    j.job_id = s.id;
    j.user = s.user.c_str();
    j.group = s.group.c_str();
    j.account = s.account.c_str();
    j.partition = r.partition;
    j.qos = s.qos.c_str();
    j.submit_time = s.submit;
    j.eligible_time = s.eligible;
    j.start_time = s.start;
    j.deadline = s.deadline;
    j.min_nodes = s.nodes;
    j.cpus = s.cpus;
    j.mem_mb = s.mem_mb;
    j.time_limit_min = s.time_limit_min;
    j.nice = s.nice;
    j.site_factor = s.site_factor;
    j.flags = static_cast<uint16_t>(
        (s.nice_admin ? MFPRIO_JOBF_NICE_ADMIN : 0u) | (s.dependent ? MFPRIO_JOBF_DEPENDENT : 0u) |
        (s.soft_violation ? MFPRIO_JOBF_SOFT_VIOLATION : 0u) | (s.urgency_given ? MFPRIO_JOBF_URGENCY : 0u) |
        (s.blocked ? MFPRIO_JOBF_BLOCKED : 0u) | (s.user_priority_admin ? MFPRIO_JOBF_USER_PRIORITY_ADMIN : 0u));
    j.prev_priority = s.prev_priority;
    j.bypass_count = s.bypass_count;
    j.start_count = s.start_count;
    j.user_priority = s.user_priority;
    j.urgency = s.urgency_given ? s.urgency : 0;
    j.attr_count = static_cast<uint32_t>(r.attrs.size());
    j.attrs = r.attrs.empty() ? nullptr : r.attrs.data();
    j.tres_count = static_cast<uint32_t>(r.tres.size());
    j.tres = r.tres.empty() ? nullptr : r.tres.data();
  }
  return out;
}

}  // namespace mfprio::host
