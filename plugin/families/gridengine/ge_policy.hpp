// ge_policy.hpp - priority/gridengine as a runtime Policy: Grid Engine's
// whole-queue pricing (ge_priority) over the admin's own `qconf -ssconf` and
// `qconf -sc` texts (PriorityParameters=sched_conf=PATH,complexes=PATH, both
// optional, relative to the conf file's directory), with the share tree,
// functional shares, override tickets and decayed cpu/mem/io usage read from
// the accounting store (AccountingStorageLoc, required).
//
// Job record -> Grid Engine job (mfprio-gridengine(5), JOB RECORD): user; account is the
// project; attrs "department", "job_share", "override_tickets", "pe"
// ("mpi 4-8", "mpi 2,4-6", "mpi 4-"), "urgency_slots" (min|max|avg|N),
// "pe_slots" (the PE's slots), "requests.<complex>" (a hard -l request, text
// as typed); user_priority is the POSIX priority; cpus are the slots of a
// job without a "pe" attr; deadline; submit_time; RUNNING or SUSPENDED jobs
// are running (start_time); HELD jobs get 0 and take no part in a pass.
//
// Passes: price_queue runs ONE pass over the pending and running jobs
// (no Job per record: each record's static parts are kept across passes,
// RecordStatic, and its TicketJob goes to the flat ticket pass) and returns
// a GePass holding its jobs, results and normalisation;
// price() of a job in the last pass returns the pass's numbers (the same
// priority and terms, whatever `now`); a job not in it is priced alone (its
// own urgency and tickets as a one-job pass) and normalised with the last
// pass's min/max urgency and max tickets; with no pass, a one-job pass.
//
// Usage: each decay pass (the runtime runs it; plan_pass/charge_job are the
// rules) charges every running job slots x seconds (cpu), mem_mb/1024
// x seconds (mem, GB-seconds) and its TRES "io" x seconds (io) to its user
// (kinds cpu/mem/io, name user), its project (project_cpu/...), and the
// user within the project (user_project_cpu/..., name "user:project") as
// windowed rows of family "gridengine" (one window, seconds 0), after
// decaying every row by Grid Engine's per-minute constant (halftime, or the
// type's halflife_decay_list entry) over the time since the last pass, all
// in one transaction; job_end charges the tail once (the family ledger).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ge_model.hpp"
#include "ge_priority.hpp"
#include "policy.hpp"
#include "store.hpp"

namespace mfprio::gridengine {

struct GeState : State {
  std::shared_ptr<const Model> model;
};

// Job id -> position, first insert wins: open addressing over a power-of-two
// table sized once for the pass (at most half full), no allocation per id.
class JobIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  void reserve(size_t n) {
    size_t cap = 16;
    int bits = 4;
    while (cap < 2 * n) {
      cap *= 2;
      ++bits;
    }
    ids_.assign(cap, 0);
    pos_.assign(cap, kNone);
    mask_ = cap - 1;
    shift_ = 64 - bits;
  }
  // The position of id, inserting `pos` when absent (then returns pos);
  // *where (optional) gets the slot, for undo.
  uint32_t insert(uint64_t id, uint32_t pos, size_t* where = nullptr) {
    size_t i = slot(id);
    for (; pos_[i] != kNone; i = (i + 1) & mask_)
      if (ids_[i] == id) return pos_[i];
    ids_[i] = id;
    pos_[i] = pos;
    if (where) *where = i;
    return pos;
  }
  // Takes back the LAST insert (its slot): no later key probed past it, and
  // no earlier one could have (the slot was empty), so no chain breaks.
  void undo(size_t where) { pos_[where] = kNone; }
  uint32_t find(uint64_t id) const {
    if (pos_.empty()) return kNone;
    for (size_t i = slot(id); pos_[i] != kNone; i = (i + 1) & mask_)
      if (ids_[i] == id) return pos_[i];
    return kNone;
  }

 private:
  size_t slot(uint64_t id) const { return static_cast<size_t>((id * 0x9E3779B97F4A7C15ull) >> shift_); }
  std::vector<uint64_t> ids_;
  std::vector<uint32_t> pos_;
  size_t mask_ = 0;
  int shift_ = 60;
};

// Numeric request values already parsed in this pass (a queue repeats the
// same few texts): (complex, text) -> number, a small direct-mapped table.
class RequestCache {
 public:
  bool find(const Complex* c, std::string_view text, double* v) const {
    const Entry& e = slots_[slot(c, text)];
    if (e.c != c || e.text != text) return false;
    *v = e.value;
    return true;
  }
  // Forgets every entry (a new pass: its model's complexes are other objects).
  void clear() {
    for (Entry& e : slots_) e.c = nullptr;
  }
  void put(const Complex* c, std::string_view text, double v) {
    Entry& e = slots_[slot(c, text)];
    e.c = c;
    e.text.assign(text.data(), text.size());
    e.value = v;
  }

 private:
  struct Entry {
    const Complex* c = nullptr;
    std::string text;
    double value = 0;
  };
  static size_t slot(const Complex* c, std::string_view text) {
    return (std::hash<std::string_view>{}(text) ^ (reinterpret_cast<uintptr_t>(c) >> 4)) % kSlots;
  }
  static constexpr size_t kSlots = 64;
  Entry slots_[kSlots];
};

// What a job of a whole-queue pass adds to its TicketJob for the urgency
// and the explanation (no strings).
struct PassUrgency {
  int64_t deadline = 0;  // when has_deadline
  double rrcontr = 0;    // static urgency
  double urg = 0;        // at the pass's time
  uint32_t slots = 1;    // S
  int32_t ppri = 0;
  bool has_deadline = false, running = false;
};

// A record's parts that do not change between passes: its static urgency
// and ticket numbers, read from the record once and kept by position (the
// host gives the same records in the same order pass after pass).  Used
// again only for the same job id, fingerprint (record_fingerprint: what
// to_ge_job reads besides times and names) and complexes.  The check reads
// the 24-byte RecordKey alone; a job whose TicketJob and PassUrgency the
// pass's last use built from the same record at the same place keeps
// theirs and never reads the RecordStatic.  GePass::slots: where each
// record went in the pass's last use (a job position; kHeld; kLeftOut: a
// running record of a job already in the pass; kFailed: refused).
struct RecordKey {
  static constexpr uint32_t kHeld = UINT32_MAX, kLeftOut = UINT32_MAX - 1, kFailed = UINT32_MAX - 2;
  static constexpr uint32_t kNoAttr = UINT32_MAX;
  uint64_t id = 0;
  uint64_t fp = 0;
  uint32_t dept_attr = kNoAttr;  // the (last) department attr's index
  bool valid = false;
  bool table_ids = false;  // its TicketJob's ids were all the name tables' (add_pass_job)
};
struct RecordStatic {
  double rrcontr = 0, js = 0, ot = 0;
  uint32_t slots = 1, dilute = 1;
  int32_t ppri = 0;
};
struct KeptRecords {
  std::vector<RecordKey> keys;
  std::vector<RecordStatic> parts;  // parallel to keys
};

// The hashes of the texts of one pass's records by their addresses: within
// one call the host's texts do not change, and attrs' names and values are
// few texts shared by many records ("department", its values): each is
// hashed once, not once per record.  Direct-mapped (a colliding address
// hashes its text again); cleared at each pass's start, as an address may
// hold another text in the next call.
class TextHashMemo {
 public:
  uint64_t hash(const char* s);
  void clear() { e_.fill(Entry{}); }

 private:
  static constexpr size_t kSize = 256;
  struct Entry {
    const char* text = nullptr;
    uint64_t hash = 0;
  };
  std::array<Entry, kSize> e_{};
};

// One whole-queue pass, kept for later single pricings.
struct GePass : PassState {
  // The pass's jobs: pending (non-held, valid, one per job id) then running.
  // Names: an id in the model's NameTables with the view of the table's
  // name, or kNoName with a view of one of extra_names.
  std::vector<TicketJob> jobs;
  std::vector<PassUrgency> urgency;   // parallel to jobs
  size_t njobs = 0;                   // while a pass fills them: the jobs so far
  size_t first_read = 0;              // while a pass fills them: the first job whose TicketJob was written
  std::vector<uint32_t> priority;     // parallel to jobs
  TicketResult tickets;               // parallel to jobs
  double min_urg = 0, max_urg = 0, max_tix = 0;
  double sum_tckts_pending = 0, sum_tckts_running = 0;  // qstat -ext share's denominators
  JobIndex index;                     // job id -> position
  int64_t now = 0;
  uint64_t publish_seq = 0;           // the State it was priced against (State::publish_seq)
  std::shared_ptr<const Model> model; // the state's: its NameTables hold the names the ids stand for
  std::deque<std::string> extra_names;                          // names outside the tables (stable)
  std::unordered_map<std::string_view, uint32_t> extra_index;   // name -> its index there
  // Kept from pass to pass (a reused pass reuses them).
  KeptRecords records;      // the pending records', by position
  KeptRecords run_records;  // the running records', by position
  std::vector<uint32_t> slots;            // pending then running records
  size_t last_pending = 0, last_total = 0;
  uint64_t complexes_gen = 0;         // the complexes `records` were read with
  Job scratch;                        // a record being read (to_ge_job)
  RequestCache requests;             // cleared at each pass's start (its complexes' addresses)
  TextHashMemo text_hashes;          // cleared at each pass's start
  TicketScratch ticket_scratch;       // the ticket pass's arrays
};

class GridEnginePolicy final : public Policy {
 public:
  const char* type() const override { return "priority/gridengine"; }
  void configure(const HostContext& host) override;
  std::string store_path() const override { return store_path_; }
  std::string store_origin() const override { return store_origin_; }
  std::shared_ptr<State> load(const StoreView* store, uint32_t layout_id) override;

  // job_resolve: the record's user, project and department ids in the
  // state's name tables (GeState::layout_id as the handle's generation).
  int resolve(const State& state, const mfprio_job_t& job, mfprio_handle_t* h, std::string* why) const override;

  int price(const State& state, const PassState* pass, const mfprio_job_t& job, int64_t now, Explain* explain,
            uint32_t* priority, uint32_t* clamp, std::string* why) const override;
  std::shared_ptr<const PassState> price_queue(const State& state, const mfprio_job_t* pending,
                                               size_t pending_count, const mfprio_job_t* running,
                                               size_t running_count, int64_t now, uint32_t* priorities,
                                               int* statuses, ClampCounts* clamps, BatchError* err) const override;

  // Usage rules (the runtime runs the pass): one decayed row per credential and type.
  bool plan_pass(const State& current, const UsagePass& pass, UsagePlan* plan) const override;
  int charge_job(const State& current, const mfprio_job_t& job, int64_t until, bool ended, UsagePlan* plan,
                 std::string* why) const override;
  std::shared_ptr<State> after_pass(const State& current, const UsagePass& pass, const UsagePlan& plan,
                                    const acct::PassResult& result, const StoreView* store, bool* reload) override;
  bool charges_usage() const override { return true; }

  bool has_share_view() const override { return true; }
  void share_view(const State& state, ShareView* out) const override;
  void info(const State& state, InfoView* out) const override;
  const char* clamp_high_text() const override { return "4294967295"; }
  const char* clamp_reason() const override { return "never: every finite prio maps to 32 bits"; }

 private:
  std::shared_ptr<GeState> build(const acct::StoreData& data, const std::vector<acct::WindowRow>& rows,
                                 uint32_t layout_id, const GeState* prev = nullptr) const;

  const HostContext* host_ = nullptr;
  SchedConf conf_;
  ComplexTable complexes_ = ComplexTable::builtin();
  std::string sched_conf_path_, complexes_path_;
  std::string store_path_, store_origin_;
  uint64_t complexes_gen_ = 0;  // new with every configure: a pass's RecordStatic are read with complexes_
  // A pass no one holds any more (its Jobs, strings and vectors keep their
  // capacity: a pass over a queue like the last allocates almost nothing),
  // else a new one.  The last holder of a pass given out hands it back
  // (the shared_ptr's deleter, under the pool's mutex: the next user
  // happens after every reader of it).
  struct PassPool {
    std::mutex mu;
    std::unique_ptr<GePass> spare;  // one idle pass at most
    void give_back(GePass* p);
  };
  std::shared_ptr<GePass> reusable_pass() const;
  // The last pass's jobs, for the share view (which gets no PassState):
  // re-priced against the state the view is asked for.
  mutable std::atomic<std::shared_ptr<const GePass>> last_pass_;
  std::shared_ptr<PassPool> pool_ = std::make_shared<PassPool>();
};

// Record -> Job; EINVAL/EPERM with *why naming the job and the field (then
// *out is half-built: the caller drops it).
// cache (optional): numbers of request texts parsed before (the same result).
int to_ge_job(const mfprio_job_t& j, const Model& model, Job* out, std::string* why, RequestCache* cache = nullptr);

}  // namespace mfprio::gridengine
