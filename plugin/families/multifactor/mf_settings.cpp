// mf_settings.cpp - see mf_settings.hpp.  Defaults and value forms follow
// slurm.conf(5) of Slurm 22.05.
#include "mf_settings.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>

#include "timestr.hpp"

namespace mfprio::multifactor {
namespace {

std::string upper(const std::string& s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return r;
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

[[noreturn]] void fail(const ConfPair& it, const std::string& why) {
  throw ConfigError(it.file + ":" + std::to_string(it.line) + ": " + it.key + ": " + why);
}

uint32_t parse_u32(const ConfPair& it, const char* what) {
  const std::string v = trim(it.value);
  if (!v.empty() && v[0] == '-') fail(it, std::string("negative ") + what + " '" + v + "'");
  errno = 0;
  char* end = nullptr;
  const unsigned long long x = std::strtoull(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno == ERANGE || x > 0xffffffffULL ||
      !std::isdigit(static_cast<unsigned char>(v[0])))
    fail(it, std::string("expected an unsigned 32-bit ") + what + ", got '" + it.value + "'");
  return static_cast<uint32_t>(x);
}

int64_t parse_time(const ConfPair& it, bool allow_infinite) {
  int64_t s = 0;
  std::string why;
  if (!parse_time_string(it.value, &s, &why)) fail(it, why);
  if (s == kTimeInfinite && !allow_infinite) fail(it, "INFINITE is not allowed here");
  return s;
}

bool parse_bool(const ConfPair& it) {
  const std::string v = upper(trim(it.value));
  if (v == "YES" || v == "TRUE" || v == "1") return true;
  if (v == "NO" || v == "FALSE" || v == "0") return false;
  fail(it, "expected YES or NO, got '" + it.value + "'");
}

struct FlagName {
  const char* name;
  uint32_t bits;
};
constexpr FlagName kFlags[] = {
    {"ACCRUE_ALWAYS", kAccrueAlways},
    {"SMALL_RELATIVE_TO_TIME", kSmallRelativeToTime},
    {"CALCULATE_RUNNING", kCalculateRunning},
    {"DEPTH_OBLIVIOUS", kDepthOblivious},
    {"NO_FAIR_TREE", kNoFairTree},
    {"INCR_ONLY", kIncrOnly},
    {"MAX_TRES", kMaxTres},
    {"NO_NORMAL_ALL", kNoNormalAssoc | kNoNormalPart | kNoNormalQos | kNoNormalTres},
    {"NO_NORMAL_ASSOC", kNoNormalAssoc},
    {"NO_NORMAL_PART", kNoNormalPart},
    {"NO_NORMAL_QOS", kNoNormalQos},
    {"NO_NORMAL_TRES", kNoNormalTres},
    {"TICKET_BASED", kTicketBased},
    {"FAIR_TREE", kFairTree},
};

uint32_t parse_flags(const ConfPair& it) {
  uint32_t flags = 0;
  const std::string v = trim(it.value);
  if (v.empty()) return 0;
  size_t pos = 0;
  while (true) {
    size_t comma = v.find(',', pos);
    if (comma == std::string::npos) comma = v.size();
    const std::string name = upper(trim(v.substr(pos, comma - pos)));
    bool known = false;
    for (const FlagName& f : kFlags)
      if (name == f.name) {
        flags |= f.bits;
        known = true;
      }
    if (!known) fail(it, "unknown flag '" + v.substr(pos, comma - pos) + "'");
    if (comma == v.size()) break;
    pos = comma + 1;
  }
  if ((flags & kTicketBased) && (flags & kDepthOblivious))
    fail(it, "TICKET_BASED and DEPTH_OBLIVIOUS choose different fair-share algorithms");
  if ((flags & kFairTree) && (flags & (kNoFairTree | kDepthOblivious | kTicketBased)))
    fail(it, "FAIR_TREE contradicts NO_FAIR_TREE, DEPTH_OBLIVIOUS and TICKET_BASED");
  return flags;
}

ResetPeriod parse_reset(const ConfPair& it) {
  const std::string v = upper(trim(it.value));
  if (v == "NONE") return ResetPeriod::None;
  if (v == "NOW") return ResetPeriod::Now;
  if (v == "DAILY") return ResetPeriod::Daily;
  if (v == "WEEKLY") return ResetPeriod::Weekly;
  if (v == "MONTHLY") return ResetPeriod::Monthly;
  if (v == "QUARTERLY") return ResetPeriod::Quarterly;
  if (v == "YEARLY") return ResetPeriod::Yearly;
  fail(it, "expected NONE, NOW, DAILY, WEEKLY, MONTHLY, QUARTERLY or YEARLY, got '" + it.value + "'");
}

}  // namespace

const char* reset_period_name(ResetPeriod p) {
  switch (p) {
    case ResetPeriod::None: return "NONE";
    case ResetPeriod::Now: return "NOW";
    case ResetPeriod::Daily: return "DAILY";
    case ResetPeriod::Weekly: return "WEEKLY";
    case ResetPeriod::Monthly: return "MONTHLY";
    case ResetPeriod::Quarterly: return "QUARTERLY";
    case ResetPeriod::Yearly: return "YEARLY";
  }
  return "NONE";
}

FairShareAlgo Settings::algo() const {
  if (flags & kTicketBased) return FairShareAlgo::TicketBased;
  if (flags & kDepthOblivious) return FairShareAlgo::DepthOblivious;
  if (flags & kNoFairTree) return FairShareAlgo::Classic;
  return FairShareAlgo::FairTree;
}

std::string Settings::flag_names() const {
  std::string r;
  for (const FlagName& f : kFlags) {
    if (f.bits == (kNoNormalAssoc | kNoNormalPart | kNoNormalQos | kNoNormalTres)) continue;
    if (flags & f.bits) r += (r.empty() ? "" : ",") + std::string(f.name);
  }
  return r;
}

bool Settings::weights_may_overflow() const {
  const uint64_t sum = uint64_t{w_age} + w_assoc + w_fairshare + w_jobsize + w_partition + w_qos;
  return sum > 0xffffffffULL;
}

std::vector<ConfPartition> parse_partitions(const std::vector<ConfPair>& conf, ConfErrors* errors) {
  std::vector<ConfPartition> out;
  const std::vector<ConfRecord> parts = conf_records(conf, "PartitionName");
  if (parts.empty()) return out;
  std::vector<ConfRecord> node_records, nodesets;
  std::vector<NodeLine> nodes;
  HostIndex hosts;
  bool nodes_ok = true;
  try {
    node_records = conf_records(conf, "NodeName");
    nodesets = conf_records(conf, "NodeSet");
    nodes = node_lines(node_records);
    bool named = false;  // index the hosts only when a partition names some
    for (const ConfRecord& r : parts)
      if (const ConfPair* n = r.get("nodes")) named = named || !iequals(n->value, "ALL");
    if (named) hosts = index_hosts(nodes);
  } catch (const ConfigError& e) {
    errors->add(e.what());
    nodes_ok = false;
  }
  auto u16 = [](const ConfPair& it) {
    const uint32_t v = parse_u32(it, "value");
    if (v > 65533) fail(it, "must be 0..65533, got '" + it.value + "'");
    return v;
  };
  for (const ConfRecord& r : parts) {
    ConfPartition p;
    p.name = r.name();
    p.origin = r.head->file + ":" + std::to_string(r.head->line);
    try {
      if (p.name.empty()) fail(*r.head, "empty partition name");
      for (const ConfPartition& q : out)
        if (q.name == p.name) fail(*r.head, "partition '" + p.name + "' is defined twice (first at " + q.origin + ")");
      if (const ConfPair* it = r.get("priority")) p.job_factor = p.tier = u16(*it);  // the old key: both
      if (const ConfPair* it = r.get("priorityjobfactor")) p.job_factor = u16(*it);
      if (const ConfPair* it = r.get("prioritytier")) p.tier = u16(*it);
      if (const ConfPair* it = r.get("default")) p.is_default = parse_bool(*it);
      if (const ConfPair* it = r.get("tresbillingweights")) {
        std::string why;
        p.billing = it->value;
        if (!parse_tres_spec(it->value, &p.billing_weights, &why, false)) fail(*it, why);
      }
      if (nodes_ok) p.has_totals = partition_totals(r, nodes, hosts, nodesets, &p.totals);
    } catch (const ConfigError& e) {
      errors->add(e.what());
      continue;
    }
    out.push_back(std::move(p));
  }
  return out;
}

Settings parse_settings(const std::vector<ConfPair>& conf) {
  Settings s;
  const ConfPair* decay_item = nullptr;
  ConfErrors errors;  // every bad value, reported together
  for (const ConfPair& it : conf) {
    const std::string k = upper(it.key);
    try {
      if (k == "PRIORITYDECAYHALFLIFE") {
        s.decay_half_life = parse_time(it, false);
        decay_item = &it;
      } else if (k == "PRIORITYCALCPERIOD") {
        s.calc_period = parse_time(it, false);
        if (s.calc_period < 60) fail(it, "must be at least 1 minute");
      } else if (k == "PRIORITYMAXAGE") {
        s.max_age = parse_time(it, false);
      } else if (k == "PRIORITYFAVORSMALL") {
        s.favor_small = parse_bool(it);
      } else if (k == "PRIORITYUSAGERESETPERIOD") {
        s.reset = parse_reset(it);
      } else if (k == "PRIORITYWEIGHTAGE") {
        s.w_age = parse_u32(it, "weight");
      } else if (k == "PRIORITYWEIGHTASSOC") {
        s.w_assoc = parse_u32(it, "weight");
      } else if (k == "PRIORITYWEIGHTFAIRSHARE") {
        s.w_fairshare = parse_u32(it, "weight");
      } else if (k == "PRIORITYWEIGHTJOBSIZE") {
        s.w_jobsize = parse_u32(it, "weight");
      } else if (k == "PRIORITYWEIGHTPARTITION") {
        s.w_partition = parse_u32(it, "weight");
      } else if (k == "PRIORITYWEIGHTQOS") {
        s.w_qos = parse_u32(it, "weight");
      } else if (k == "PRIORITYWEIGHTTRES") {
        std::string why;
        if (!parse_tres_spec(it.value, &s.w_tres, &why, /*allow_negative=*/true)) fail(it, why);
        if (s.w_tres.size() > 16) fail(it, "at most 16 TRES weights");
        s.w_tres_text = it.value;
      } else if (k == "PRIORITYFLAGS") {
        s.flags = parse_flags(it);
      } else if (k == "FAIRSHAREDAMPENINGFACTOR") {
        s.dampening = parse_u32(it, "factor");
        if (s.dampening < 1) fail(it, "must be at least 1");
      }
    } catch (const ConfigError& e) {
      errors.add(e.what());
    }
  }
  s.partitions = parse_partitions(conf, &errors);
  try {
    s.store_path = store_location(conf, &s.store_path_origin);  // common/conf.hpp: the one rule
  } catch (const ConfigError& e) {
    errors.add(e.what());
  }
  if (s.decay_half_life == 0 && s.reset == ResetPeriod::None && decay_item)
    errors.add(decay_item->file + ":" + std::to_string(decay_item->line) + ": " + decay_item->key +
               ": 0 (no decay) needs PriorityUsageResetPeriod, or usage grows forever");
  errors.throw_if_any();
  return s;
}

}  // namespace mfprio::multifactor
