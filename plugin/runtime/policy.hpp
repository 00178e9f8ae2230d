// policy.hpp - the seam between the generic plugin (edge + runtime) and one
// priority family.  A family (plugin/families/<name>/) implements Policy;
// the edge (plugin/edge/) writes every extern "C" body once over it, and the
// runtime (runtime.hpp) owns the store, the published state and the
// decay/job_end orchestration.  Nothing here names a family's factors.
//
// Call order, as the runtime drives it:
//   configure(host)                 once, at init: parse and validate the keys
//   load(view, layout_id)           at init, after an admin's edit, and to
//                                   converge on the store after a failed pass
//   resolve / price / price_batch / price_queue   any thread, const, no I/O
//   plan_pass / charge_job / after_pass   control thread: the rules of the
//                                   usage pass the runtime runs (runtime.hpp);
//                                   no family writes the store
//   share_table / info              any thread, const
//
// Invariants a family keeps:
//   - State objects are immutable once returned (the runtime publishes them
//     through an atomic pointer; readers hold them for a call or a batch).
//   - price() of the same State, PassState, job and `now` is deterministic,
//     and the explained path (Explain != null) gives the same priority as
//     the fast path.
//   - Usage rules are pure but for after_pass (which may keep the family's
//     control-thread copy of usage): the runtime writes the pass and owns
//     what follows a failure (runtime.hpp, "The usage pass").
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cluster.hpp"
#include "conf.hpp"
#include "mfprio/mfprio.h"
#include "store.hpp"

namespace mfprio {

// What init() gave, in C++ form; alive from init to fini.
struct HostContext {
  std::string type;                 // "priority/multifactor": log prefix, messages
  std::vector<ConfPair> conf;       // every pair, in file order
  ClusterTotals cluster;
  mfprio_log_fn log_fn = nullptr;
  void* log_arg = nullptr;
  mfprio_clock_fn clock_fn = nullptr;
  void* clock_arg = nullptr;

  int64_t now() const;
  void log(int level, const std::string& msg) const;
};

// The immutable state one pricing reads.  A family derives its own.
// Two numbers, never one for the other:
//   layout_id   what a job handle's `generation` field must equal for the
//               handle to be used (mfprio_handle_t); a new one whenever the
//               names behind handles change, from next_layout_id() only.
//   publish_seq plugin_stats' `generation`: +1 per publish, set by the
//               runtime when it publishes (a family never numbers it).
struct State {
  virtual ~State() = default;
  uint32_t layout_id = 0;     // what mfprio_handle_t.generation holds; 0: no handles
  uint64_t publish_seq = 0;   // publish counter (mfprio_stats_t.generation), not the handles'
  int64_t last_decay = 0;     // time of the last decay pass (plugin_stats)
  uint64_t associations = 0;  // plugin_stats
};

// What a whole-queue pass leaves for later single pricings (Grid Engine's
// normalization, tickets).  Families that need none return null.
struct PassState {
  virtual ~PassState() = default;
};

// The explained path's sink: terms written straight into the caller's
// mfprio_factors_t (at most `capacity` of them; more are counted, not written).
class Explain {
 public:
  Explain(mfprio_factors_t* out, size_t capacity) : out_(out), capacity_(capacity) {}
  // Appends a term; returns its index (for children's `parent`).
  int term(const char* name, const char* label, double factor, double weight, double contribution,
           int parent = -1, uint32_t flags = 0, uint32_t width = 0, const char* text = nullptr);
  void resolved(const std::string& account, const std::string& partition, const std::string& qos);
  void total(double unclamped, uint32_t priority, uint32_t clamp);
  size_t count() const { return count_; }

 private:
  mfprio_factors_t* out_;
  size_t capacity_;
  size_t count_ = 0;
};

// Clamp counts of a batch or queue pass (the edge adds them to the stats).
struct ClampCounts {
  uint64_t high = 0, low = 0;
  void add(uint32_t clamp) {
    if (clamp == MFPRIO_CLAMP_HIGH) ++high;
    else if (clamp == MFPRIO_CLAMP_LOW) ++low;
  }
};

// A batch's first failure: status and message, for errmsg().
struct BatchError {
  int status = MFPRIO_OK;
  std::string message;
  void note(int rc, const std::string& why) {
    if (rc != MFPRIO_OK && status == MFPRIO_OK) {
      status = rc;
      message = why;
    }
  }
};

// Read-only access to the store, for load() and after_pass(): a family
// reads through it and never writes (the runtime writes the usage pass).
class StoreView {
 public:
  explicit StoreView(acct::Store* store) : store_(store) {}
  acct::StoreData load(const acct::LoadOptions& opts) const;
  acct::TreeData load_tree() const;
  std::vector<acct::WindowRow> load_windows(const std::string& family) const;
  acct::DecayState decay_state() const;

 private:
  acct::Store* store_;
};

// One usage pass as the runtime runs it: a decay pass (ended false, `now`
// the pass time, `jobs` the running ones) or a batch of job ends (ended
// true, until[i] each job's end, `now` the host's clock or the last pass,
// whichever is later).  jobs/until list every record the host gave.
struct UsagePass {
  bool ended = false;
  int64_t now = 0;
  const mfprio_job_t* jobs = nullptr;
  const int64_t* until = nullptr;  // stride: until_stride
  size_t until_stride = 0;         // 0: one time (now) for every job
  size_t count = 0;
  int64_t until_of(size_t i) const { return until[i * until_stride]; }
};

// What a pass writes: scalar rows (associations' usage, the job ledger)
// and/or windowed rows, with the pass's clock; one transaction.
using UsagePlan = acct::PassWrite;

// The share view a family builds; the edge turns it into the C table and JSON.
struct ShareView {
  std::vector<mfprio_share_column_t> columns;
  struct Cell {
    double value = 0;
    bool is_text = false;
    std::string text;
  };
  struct Row {
    int32_t parent = -1;
    uint32_t depth = 0;
    bool is_user = false;
    std::string account, user, partition;
    std::vector<Cell> cells;  // one per column
  };
  std::vector<Row> rows;

  void column(const char* name, const char* label, int32_t decimals, uint32_t width, uint32_t flags);
  static Cell num(double v) { return Cell{v, false, {}}; }
  static Cell text(std::string t) { return Cell{0, true, std::move(t)}; }
};

// A share table written straight into the ABI's one-allocation block, for a
// family whose table is big enough that a ShareView first costs: the family
// gives the rows one at a time (parents first) to a sink the edge owns
// (edge/share_block.hpp: the block's layout is written there, once).
struct ShareCell {
  // Number: `value`; Text: `text` ("", and a text equal to the last Text
  // cell's, share one copy); Account / User: the row's own string.
  enum Kind : uint8_t { Number, Text, Account, User } kind = Number;
  double value = 0;
  std::string_view text;
};
struct ShareRowSpec {
  int32_t parent = -1;
  uint32_t depth = 0;
  bool is_user = false;
  std::string_view account, user, partition;  // user: only read for a user row; partition "": none
  const ShareCell* cells = nullptr;            // one per column
};
class ShareBlockSink {
 public:
  virtual ~ShareBlockSink() = default;
  // Once, first.  `string_bytes` bounds the bytes of the rows' strings, each
  // with its NUL (a user row's account equal to its parent row's, a repeated
  // text and "" take none): a row past it, or past `rows`, throws.
  virtual void begin(const std::vector<mfprio_share_column_t>& columns, size_t rows, size_t string_bytes) = 0;
  virtual void row(const ShareRowSpec& r) = 0;
};

// Settings in force, as a flat list the edge renders as JSON
// (plugin_info_json).  Values: a number, a string or a boolean; `weights`
// are keyed by term name (views print them in the weights row).
struct InfoView {
  struct Item {
    std::string key;
    enum Kind { Number, Integer, String, Bool, List } kind = Number;
    double number = 0;
    int64_t integer = 0;
    std::string string;
    bool boolean = false;
    std::vector<std::string> list;  // List: a JSON array of strings
  };
  std::vector<Item> settings;
  std::vector<Item> weights;
  // The family's top-level terms in column order (name, label, flags,
  // width), so a view can print its header with no job to explain.
  struct TermInfo {
    std::string name, label;
    uint32_t flags = 0, width = 0;
  };
  std::vector<TermInfo> terms;
  void term(const std::string& name, const std::string& label, uint32_t flags = 0, uint32_t width = 0) {
    terms.push_back({name, label, flags, width});
  }
  void set(const std::string& k, double v) { settings.push_back({k, Item::Number, v, 0, {}, false, {}}); }
  void set_int(const std::string& k, int64_t v) { settings.push_back({k, Item::Integer, 0, v, {}, false, {}}); }
  void set(const std::string& k, const std::string& v) { settings.push_back({k, Item::String, 0, 0, v, false, {}}); }
  void set_bool(const std::string& k, bool v) { settings.push_back({k, Item::Bool, 0, 0, {}, v, {}}); }
  void set_list(const std::string& k, std::vector<std::string> v) {
    settings.push_back({k, Item::List, 0, 0, {}, false, std::move(v)});
  }
  void weight(const std::string& term, double v) { weights.push_back({term, Item::Number, v, 0, {}, false, {}}); }
  void weight(const std::string& term, const std::string& v) {
    weights.push_back({term, Item::String, 0, 0, v, false, {}});
  }
};

class Policy {
 public:
  virtual ~Policy() = default;

  // "priority/multifactor": the plugin_type this policy is carried as.
  virtual const char* type() const = 0;

  // Reads and validates the family's keys.  Throws ConfigError naming
  // file:line and the key; changes nothing on failure.
  virtual void configure(const HostContext& host) = 0;

  // Where the family keeps its hierarchy and usage ("" = no store) and the
  // file:line that said so (for messages).
  virtual std::string store_path() const { return {}; }
  virtual std::string store_origin() const { return {}; }

  // The whole state from the store (`store` null when store_path() is
  // ""), its handles numbered `layout_id`.  Throws acct::StoreError (or
  // std::exception) when the store cannot be used.
  virtual std::shared_ptr<State> load(const StoreView* store, uint32_t layout_id) = 0;

  // --- pricing: any thread, const, no I/O --------------------------------
  // Looks the job's names up once (job_resolve).  Default: nothing to look up.
  virtual int resolve(const State& state, const mfprio_job_t& job, mfprio_handle_t* h,
                      std::string* why) const;
  // One job.  `pass` is the last whole-queue pass (may be null); `explain`
  // is null on the fast path.  *clamp gets MFPRIO_CLAMP_*.
  virtual int price(const State& state, const PassState* pass, const mfprio_job_t& job, int64_t now,
                    Explain* explain, uint32_t* priority, uint32_t* clamp, std::string* why) const = 0;
  // One record of a batch as set_priority prices it: check_job's checks,
  // then price() by name.  On failure *priority is 0 and the fault is noted
  // in *err (which keeps the batch's first); on success the clamp is
  // counted.  The default price_batch's body and every family's slow path.
  int price_checked(const State& state, const PassState* pass, const mfprio_job_t& job, int64_t now,
                    uint32_t* priority, ClampCounts* clamps, BatchError* err) const;
  // Many jobs; every record gets priorities[i] (0 on failure) and, when
  // statuses is not null, statuses[i].  Default: price_checked per record.
  virtual void price_batch(const State& state, const PassState* pass, const mfprio_job_t* jobs,
                           size_t count, int64_t now, uint32_t* priorities, int* statuses,
                           ClampCounts* clamps, BatchError* err) const;
  // The whole pending queue with the running jobs given.  Default: the
  // batch over `pending`, no pass state.
  virtual std::shared_ptr<const PassState> price_queue(const State& state, const mfprio_job_t* pending,
                                                       size_t pending_count, const mfprio_job_t* running,
                                                       size_t running_count, int64_t now,
                                                       uint32_t* priorities, int* statuses,
                                                       ClampCounts* clamps, BatchError* err) const;

  // --- usage rules: control thread (runtime.hpp runs the pass) -------------
  // The pass's frame without charges: the decay plan (PassClock, rates,
  // window bounds) in plan->scalar and/or plan->windows.  False: the family
  // keeps no usage (nothing is charged; after_pass still follows).
  virtual bool plan_pass(const State& current, const UsagePass& pass, UsagePlan* plan) const;
  // Adds what one job charges up to `until` to the plan (the runtime has
  // checked the record and its start: check_charge).  MFPRIO_ENOENT with
  // *why naming the job and its association: the association is gone (an
  // admin deleted it while the job ran); the runtime warns once and goes
  // on without it.  Any other status refuses the whole pass.
  virtual int charge_job(const State& current, const mfprio_job_t& job, int64_t until, bool ended,
                         UsagePlan* plan, std::string* why) const;
  // The state that follows the committed pass (null: keep `current`; a
  // decay that keeps it is a reload).  `store` is null when the family
  // keeps no store.  *reload: the store holds what this state cannot carry
  // (an admin's edit read here): the runtime rebuilds with load() instead.
  // May throw: the runtime then rebuilds from the store.
  virtual std::shared_ptr<State> after_pass(const State& current, const UsagePass& pass, const UsagePlan& plan,
                                            const acct::PassResult& result, const StoreView* store,
                                            bool* reload);
  // Whether job_end charges anything (the edge exports job_end either way).
  virtual bool charges_usage() const { return false; }

  // --- views: any thread, const ---------------------------------------------
  virtual bool has_share_view() const { return false; }
  virtual void share_view(const State& state, ShareView* out) const;
  // The same table given row by row to the edge's block writer, for a
  // family whose table is big enough that a ShareView first costs; false
  // (default, nothing given): the edge builds it from share_view.
  virtual bool share_block(const State&, ShareBlockSink*) const { return false; }
  virtual void info(const State& state, InfoView* out) const;
  // Messages about clamps: the ceiling, and why a family's totals pass it.
  virtual const char* clamp_high_text() const { return "4294967295"; }
  virtual const char* clamp_reason() const { return "the weights sum past 2^32-1"; }
};

// The checks every family relies on, written once (policy.cpp:
// record_fault, the one body of the three; the edge runs them on every
// checked path; a family's own fast path takes only records they would
// accept).  check_record: the record's shape (size, pointer/count pairs,
// finite non-negative TRES counts, times, urgency range).  check_job: that,
// plus an owner and the permission rule: ordinary users may only lower
// their own priority (negative nice and positive user priority need the
// admin flags).  Return a status with *why naming `where` and the job.
int check_record(const mfprio_job_t* job, const char* where, std::string* why);
int check_job(const mfprio_job_t* job, const char* where, std::string* why);
// A time the ABI accepts (mfprio.h: MFPRIO_TIME_MAX).
inline bool time_ok(int64_t t) { return t >= 0 && t <= MFPRIO_TIME_MAX; }
// check_job's answer without its message: true exactly when check_job would
// return MFPRIO_OK (a record it refuses goes through check_job, which names
// the fault).
bool job_acceptable(const mfprio_job_t& j);
// The slow path of a family's batch fast loop, as a C-style callback
// (int (*)(void* ctx, size_t i)): record i of `jobs` through price_checked.
struct SlowRecords {
  const Policy* policy;
  const State* state;
  const PassState* pass;
  const mfprio_job_t* jobs;
  int64_t now;
  uint32_t* priorities;
  ClampCounts* clamps;
  BatchError* err;
  static int call(void* ctx, size_t i) {
    const SlowRecords& c = *static_cast<const SlowRecords*>(ctx);
    return c.policy->price_checked(*c.state, c.pass, c.jobs[i], c.now, &c.priorities[i], c.clamps, c.err);
  }
};

// THE handle layout numbering (State::layout_id; the runtime's loads and a
// family whose pass makes a new layout draw from it): never 0 (a zeroed
// handle), unique within one load of the plugin, seeded from the clock in
// nanoseconds and the pid, so a plugin unloaded and loaded again (or
// another process) starts elsewhere in the 2^32 range and an old handle is
// not taken for a current one.
uint32_t next_layout_id();

// A family's fast-path pre-test of check_job's rule (not a second rule: on
// any doubt it answers false, and the record goes to the one check through
// the family's slow path, price_checked, which gives the status and message),
// in one pass with one branch for the common case, split in two so a family
// can read the TRES list its own way.  fast_record_head_ok: everything but
// the TRES counts.  True only when job_acceptable's other tests pass; it is
// stricter (the four times tested through their OR, both list counts below
// 4096, and with allow_attrs false any attribute refused).
__attribute__((always_inline)) inline bool fast_record_head_ok(const mfprio_job_t& j, bool allow_attrs) {
  const uint64_t times = static_cast<uint64_t>(j.submit_time) | static_cast<uint64_t>(j.eligible_time) |
                         static_cast<uint64_t>(j.start_time) | static_cast<uint64_t>(j.deadline);
  const uint32_t f = j.flags;
  static_assert(MFPRIO_MAX_LIST == 4096, "the list-count mask");
  constexpr uint32_t kBig = ~uint32_t{MFPRIO_MAX_LIST - 1};
  const uint32_t attrs = allow_attrs ? (j.attr_count & kBig) : j.attr_count;
  bool bad = (j.struct_size < sizeof(mfprio_job_t)) | ((attrs | (j.tres_count & kBig)) != 0) |
             ((j.tres_count != 0) & (j.tres == nullptr)) | ((j.attr_count != 0) & (j.attrs == nullptr)) |
             (j.user == nullptr) | (times > static_cast<uint64_t>(MFPRIO_TIME_MAX));
  // A negative nice, a positive user priority or an urgency: the exact rules.
  if (__builtin_expect(((static_cast<uint32_t>(j.nice) >> 31) | (j.user_priority > 0) | (f & MFPRIO_JOBF_URGENCY)) != 0, 0))
    bad |= (((f & MFPRIO_JOBF_URGENCY) != 0) & (j.urgency > MFPRIO_URGENCY_EXPEDITE)) |
           ((j.nice < 0) & ((f & MFPRIO_JOBF_NICE_ADMIN) == 0)) |
           ((j.user_priority > 0) & ((f & MFPRIO_JOBF_USER_PRIORITY_ADMIN) == 0));
  return !(__builtin_expect(bad, 0) || __builtin_expect(*j.user == '\0', 0));
}
// The TRES counts as job_acceptable reads them, the first (a 0 when the list
// is empty) picked without a branch on the count and any others in a loop,
// so a record with one TRES or none costs no mispredicted loop exit.  Only
// after fast_record_head_ok (a count implies a list).
__attribute__((always_inline)) inline bool fast_tres_counts_ok(const mfprio_job_t& j) {
  static const mfprio_tres_t kNone{nullptr, 0.0};
  const uint32_t n = j.tres_count;
  const uintptr_t m = -static_cast<uintptr_t>(n != 0);
  const auto* first = reinterpret_cast<const mfprio_tres_t*>((reinterpret_cast<uintptr_t>(j.tres) & m) |
                                                             (reinterpret_cast<uintptr_t>(&kNone) & ~m));
  const double c0 = first->count;
  bool ok = (c0 >= 0) & (c0 != HUGE_VAL);
  if (__builtin_expect(n > 1, 0))
    for (uint32_t i = 1; i < n; ++i) {
      const double c = j.tres[i].count;
      ok &= (c >= 0) & (c != HUGE_VAL);
    }
  return ok;
}
// A handle is trusted only when it names the record's own names (a handle
// kept after the job's user, account, QOS or partition changed, or one
// resolved for another record, is resolved again by name): `stored` is the
// name the handle points at, `given` the record's (NULL counts as "").  No
// strlen, no allocation: the fast paths call it per record.
__attribute__((always_inline)) inline bool name_is(std::string_view stored, const char* given) {
  if (!given) return stored.empty();
  const size_t n = stored.size();
  return (n == 0 || std::strncmp(stored.data(), given, n) == 0) && given[n] == '\0';
}

// A name kept inline for a fast path's handle check (dense, next to the
// other per-entry data, so checking a record's name costs no pointer chase
// into a name pool): the first 15 bytes, NUL-padded; byte 15 is 1 when the
// name is longer (then inline_name_is answers -1 and the caller compares
// the whole name).  1: `given` is this name; 0: it is not.
struct InlineName {
  char c[16] = {};
  void set(std::string_view n) {
    for (size_t i = 0; i < 15; ++i) c[i] = i < n.size() ? n[i] : '\0';
    c[15] = n.size() > 15 ? 1 : 0;
  }
};
// Reads `given` 16 bytes at a time when they lie in one page (a read past
// its NUL inside the page: never a fault, so the sanitizers are told not
// to look at this one function), else byte by byte.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MFPRIO_WHOLE_WORD_READ __attribute__((no_sanitize("address", "thread")))
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define MFPRIO_WHOLE_WORD_READ __attribute__((no_sanitize("address", "thread")))
#endif
#endif
#ifndef MFPRIO_WHOLE_WORD_READ  // (no sanitizer: inlined into the fast loops)
#define MFPRIO_WHOLE_WORD_READ __attribute__((always_inline))
#endif
MFPRIO_WHOLE_WORD_READ inline int inline_name_is(const InlineName& n, const char* given) {
  if (!given) return n.c[0] == '\0' && n.c[15] == 0;
  uint64_t s0, s1;
  std::memcpy(&s0, n.c, 8);
  std::memcpy(&s1, n.c + 8, 8);
  if (__builtin_expect((reinterpret_cast<uintptr_t>(given) & 4095) <= 4096 - 16, 1)) {
    uint64_t g0, g1;
    std::memcpy(&g0, given, 8);
    std::memcpy(&g1, given + 8, 8);
    constexpr uint64_t kLo = 0x0101010101010101ull, kHi = 0x8080808080808080ull;
    // Keep the bytes before given's first NUL (little-endian: byte i is bits 8i..8i+7).
    const uint64_t z0 = (g0 - kLo) & ~g0 & kHi;
    if (z0) {
      g0 &= (uint64_t{1} << (__builtin_ctzll(z0) & ~7)) - 1;  // (bit 0: a NUL first, nothing kept)
      return g0 == s0 && s1 == 0;
    }
    const uint64_t z1 = (g1 - kLo) & ~g1 & kHi;
    if (!z1) return n.c[15] ? -1 : 0;  // given is longer than 15 bytes
    g1 &= (uint64_t{1} << (__builtin_ctzll(z1) & ~7)) - 1;
    return g0 == s0 && g1 == s1;
  }
  for (size_t i = 0; i < 15; ++i) {
    if (n.c[i] != given[i]) return 0;
    if (given[i] == '\0') return 1;
  }
  return n.c[15] ? -1 : given[15] == '\0';
}

// The first 15 bytes of `s` before its NUL, NUL-padded, as two words (read
// as inline_name_is reads them: 16 bytes at a time inside a page); true when
// `s` may go on past them (a caller hashing the whole name goes on from
// s + 15: nothing is there when it is exactly 15 bytes).  For a word-at-a-
// time hash of a short name on a fast path (maui's unknown-credential test).
MFPRIO_WHOLE_WORD_READ inline bool name_words(const char* s, uint64_t* w0, uint64_t* w1) {
  constexpr uint64_t kLo = 0x0101010101010101ull, kHi = 0x8080808080808080ull;
  if (__builtin_expect((reinterpret_cast<uintptr_t>(s) & 4095) <= 4096 - 16, 1)) {
    uint64_t g0, g1;
    std::memcpy(&g0, s, 8);
    std::memcpy(&g1, s + 8, 8);
    const uint64_t z0 = (g0 - kLo) & ~g0 & kHi;
    if (z0) {
      *w0 = g0 & ((uint64_t{1} << (__builtin_ctzll(z0) & ~7)) - 1);
      *w1 = 0;
      return false;
    }
    const uint64_t z1 = (g1 - kLo) & ~g1 & kHi;
    *w0 = g0;
    if (!z1) {
      *w1 = g1 & ~(uint64_t{0xff} << 56);  // 15 bytes, as for a short name
      return true;
    }
    *w1 = g1 & ((uint64_t{1} << (__builtin_ctzll(z1) & ~7)) - 1);
    return false;
  }
  char b[16] = {};
  for (size_t i = 0; i < 15; ++i) {
    if (s[i] == '\0') {
      std::memcpy(w0, b, 8);
      std::memcpy(w1, b + 8, 8);
      return false;
    }
    b[i] = s[i];
  }
  std::memcpy(w0, b, 8);
  std::memcpy(w1, b + 8, 8);
  return true;
}

// A job about to be charged up to `until` (decay's running jobs, job_end's
// finished ones): a whole record with a user and a start time in
// (0, until].  The runtime's check before any family's charge_job.
int check_charge(const mfprio_job_t& job, int64_t until, bool ended, std::string* why);

// Each priority_<family>.cpp defines this (edge/plugin_main.hpp's macro).
std::unique_ptr<Policy> make_policy();

}  // namespace mfprio
