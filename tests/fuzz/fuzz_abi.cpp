// fuzz_abi.cpp - libFuzzer: a real family plugin (dlopened, as a host does)
// fed arbitrary job records: priority_multifactor.so, or the family named by
// MFPRIO_FUZZ_FAMILY at compile time (fuzz_abi_maui, fuzz_abi_gridengine,
// fuzz_abi_flux: the same harness with that family's own pairs).  Every mfprio_job_t field comes from
// the input (names from a small dictionary or raw bytes, numbers raw, TRES
// and attributes with raw doubles and names, handles forged), then
// set_priority, job_resolve + set_priority (and a handle forged with the
// current generation, and a stale one resolved for another record whose
// names differ: it must price exactly as by name, single and batch),
// job_factors(_json),
// set_priority_batch, prioritize and, for some inputs, decay/job_end with
// the record as a running job.  Every call must return an MFPRIO_* status
// with a bounded errmsg(); the sanitizers catch the rest.
//
// The store is a temporary file filled from samples/accounts.json once.
#include <dlfcn.h>
#include <fuzzer/FuzzedDataProvider.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "import_export.hpp"
#include "mfprio/mfprio.h"
#include "store.hpp"

namespace {

mfprio_ops_t ops;
std::string db_path;

void check(int rc, const char* what) {
  if (rc > 0 || rc < MFPRIO_ENOTSUP) {
    std::fprintf(stderr, "fuzz_abi: %s returned %d\n", what, rc);
    abort();
  }
  const char* m = ops.errmsg();
  if (!m || std::strlen(m) > MFPRIO_ERRMSG_MAX) {
    std::fprintf(stderr, "fuzz_abi: %s: errmsg unbounded\n", what);
    abort();
  }
}

std::string pick_name(FuzzedDataProvider& p, const char* const* dict, size_t n) {
  const uint8_t how = p.ConsumeIntegral<uint8_t>();
  if (how < 200) return dict[how % n];
  return p.ConsumeRandomLengthString(64);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) abort();
  exe[n] = '\0';
  std::string dir(exe);
  dir = dir.substr(0, dir.rfind('/'));
#ifndef MFPRIO_FUZZ_FAMILY
#define MFPRIO_FUZZ_FAMILY "multifactor"
#endif
  const std::string family = MFPRIO_FUZZ_FAMILY;
  const std::string so = dir + "/../../plugin/priority_" + family + ".so";
  void* dl = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!dl) {
    std::fprintf(stderr, "fuzz_abi: %s\n", dlerror());
    abort();
  }
  static const char* const names[] = {MFPRIO_OPS_SYMBOLS};
  for (size_t i = 0; i < MFPRIO_OPS_COUNT; ++i) {
    void* sym = dlsym(dl, names[i]);
    if (!sym) abort();
    std::memcpy(reinterpret_cast<char*>(&ops) + i * sizeof(void (*)()), &sym, sizeof sym);
  }
  char tmpl[] = "/tmp/mfprio-fuzz-abi-XXXXXX";
  if (!mkdtemp(tmpl)) abort();
  db_path = std::string(tmpl) + "/acct.db";
  {
    auto store = mfprio::acct::Store::open(db_path);
    mfprio::acct::import_json_file(*store, MFPRIO_SAMPLES "/accounts.json");
  }
  static mfprio_kv_t kv[] = {
      {"AccountingStorageLoc", db_path.c_str(), "fuzz.conf", 1},
      {"PriorityWeightFairshare", "10000", "fuzz.conf", 2},
      {"PriorityWeightAge", "1000", "fuzz.conf", 3},
      {"PriorityWeightJobSize", "1000", "fuzz.conf", 4},
      {"PriorityWeightPartition", "1000", "fuzz.conf", 5},
      {"PriorityWeightQOS", "2000", "fuzz.conf", 6},
      {"PriorityWeightTRES", "CPU=500,Mem=250,GRES/gpu=3000", "fuzz.conf", 7},
      {"PriorityDecayHalfLife", "7-0", "fuzz.conf", 8},
  };
  kv[0].value = db_path.c_str();
  static std::vector<mfprio_kv_t> conf(kv, kv + sizeof kv / sizeof kv[0]);
  static const std::string samples = MFPRIO_SAMPLES;
  static std::string params;
  if (family == "maui") params = "config=" + samples + "/maui.cfg";
  if (family == "gridengine")
    params = "sched_conf=" + samples + "/gridengine/sched_conf,complexes=" + samples + "/gridengine/complexes";
  if (!params.empty()) conf.push_back(mfprio_kv_t{"PriorityParameters", params.c_str(), "fuzz.conf", 9});
  mfprio_host_t h{};
  h.struct_size = sizeof h;
  h.abi_version = MFPRIO_ABI_VERSION;
  h.conf = conf.data();
  h.conf_count = conf.size();
  h.cluster_nodes = 4;
  h.cluster_cpus = 96;
  h.cluster_mem_mb = 1 << 20;
  if (ops.init(&h) != MFPRIO_OK) {
    std::fprintf(stderr, "fuzz_abi: init: %s\n", ops.errmsg());
    abort();
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const char* const users[] = {"alice", "bob", "carol", "dave", "erin", "frank", "", "nobody"};
  static const char* const accounts[] = {"theory", "experiment", "chemistry", "labs", "physics", "root", "", "x"};
  static const char* const parts[] = {"batch", "gpu", "debug", "", "nope"};
  static const char* const qos[] = {"normal", "high", "scavenger", "", "nope"};
  static const char* const tres_names[] = {"cpu", "mem", "node", "gres/gpu", "billing", "GRES/GPU", "", "x/y"};
  FuzzedDataProvider p(data, size);
  mfprio_job_t j{};
  j.struct_size = sizeof j;
  j.state = p.ConsumeIntegralInRange<uint16_t>(0, 5);
  j.flags = p.ConsumeIntegral<uint16_t>();
  j.job_id = p.ConsumeIntegral<uint64_t>();
  const std::string user = pick_name(p, users, 8), account = pick_name(p, accounts, 8),
                    partition = pick_name(p, parts, 5), q = pick_name(p, qos, 5), group = pick_name(p, users, 8);
  j.user = p.ConsumeBool() ? user.c_str() : nullptr;
  j.account = account.c_str();
  j.partition = partition.c_str();
  j.qos = q.c_str();
  j.group = group.c_str();
  const int64_t base = 1763726400;  // 2025-11-21
  j.submit_time = p.ConsumeBool() ? base - p.ConsumeIntegral<uint32_t>() : p.ConsumeIntegral<int64_t>();
  j.eligible_time = p.ConsumeBool() ? j.submit_time : p.ConsumeIntegral<int64_t>();
  j.start_time = p.ConsumeBool() ? base - p.ConsumeIntegral<uint16_t>() : p.ConsumeIntegral<int64_t>();
  j.deadline = p.ConsumeIntegral<int64_t>();
  j.min_nodes = p.ConsumeIntegral<uint32_t>();
  j.cpus = p.ConsumeIntegral<uint32_t>();
  j.mem_mb = p.ConsumeIntegral<uint64_t>();
  j.time_limit_min = p.ConsumeIntegral<uint32_t>();
  j.nice = p.ConsumeIntegral<int32_t>();
  j.site_factor = p.ConsumeIntegral<int32_t>();
  j.prev_priority = p.ConsumeIntegral<uint32_t>();
  j.bypass_count = p.ConsumeIntegral<uint32_t>();
  j.start_count = p.ConsumeIntegral<uint32_t>();
  j.user_priority = p.ConsumeIntegral<int32_t>();
  j.urgency = p.ConsumeIntegral<uint8_t>();
  std::vector<mfprio_tres_t> tres(p.ConsumeIntegralInRange<size_t>(0, 6));
  std::vector<std::string> tres_raw;
  tres_raw.reserve(tres.size());
  for (auto& t : tres) {
    tres_raw.push_back(pick_name(p, tres_names, 8));
    t.name = p.ConsumeIntegralInRange<int>(0, 20) == 0 ? nullptr : tres_raw.back().c_str();
    double c = 0;
    const size_t got = p.ConsumeData(&c, sizeof c);  // any bit pattern: NaN, inf, negative, denormal
    if (got != sizeof c) c = 1;
    t.count = c;
  }
  j.tres = tres.empty() ? nullptr : tres.data();
  j.tres_count = static_cast<uint32_t>(tres.size());
  std::vector<mfprio_attr_t> attrs(p.ConsumeIntegralInRange<size_t>(0, 3));
  std::vector<std::string> attr_raw;
  attr_raw.reserve(attrs.size() * 2);
  for (auto& a : attrs) {
    attr_raw.push_back(p.ConsumeRandomLengthString(16));
    a.name = attr_raw.back().c_str();
    attr_raw.push_back(p.ConsumeRandomLengthString(16));
    a.value = p.ConsumeBool() ? attr_raw.back().c_str() : nullptr;
  }
  j.attrs = attrs.empty() ? nullptr : attrs.data();
  j.attr_count = static_cast<uint32_t>(attrs.size());
  j.handle.generation = p.ConsumeIntegral<uint32_t>();
  j.handle.assoc = p.ConsumeIntegral<uint32_t>();
  j.handle.partition = p.ConsumeIntegral<uint16_t>();
  j.handle.qos = p.ConsumeIntegral<uint16_t>();
  const int64_t now = p.ConsumeBool() ? base + p.ConsumeIntegral<uint16_t>() : p.ConsumeIntegral<int64_t>();
  const uint8_t what = p.ConsumeIntegral<uint8_t>();

  uint32_t prio = 0;
  check(ops.set_priority(&j, now, &prio), "set_priority");
  mfprio_job_t r = j;
  check(ops.job_resolve(&r), "job_resolve");
  check(ops.set_priority(&r, now, &prio), "set_priority (resolved)");
  // A forged handle with the current generation (the one a random one
  // never has): the ids out of range or naming other credentials.
  mfprio_job_t forged = r;
  forged.handle.assoc ^= p.ConsumeIntegral<uint32_t>();
  forged.handle.partition ^= p.ConsumeIntegral<uint16_t>();
  forged.handle.qos ^= p.ConsumeIntegral<uint16_t>();
  check(ops.set_priority(&forged, now, &prio), "set_priority (forged)");
  // A stale handle whose names changed: resolved for another record (other
  // user, account, partition or QOS from the dictionary) and kept on this
  // one.  It must be priced exactly as by name (a zeroed handle), on the
  // single and the batch path: the handle names the record's own names or
  // it is not used (a kept handle once priced and charged the old names).
  {
    const std::string ouser = pick_name(p, users, 8), oaccount = pick_name(p, accounts, 8),
                      opart = pick_name(p, parts, 5), oqos = pick_name(p, qos, 5), ogroup = pick_name(p, users, 8);
    mfprio_job_t other = j;
    other.user = ouser.c_str();
    other.account = oaccount.c_str();
    other.partition = opart.c_str();
    other.qos = oqos.c_str();
    other.group = ogroup.c_str();
    check(ops.job_resolve(&other), "job_resolve (other record)");
    mfprio_job_t stale = j, by_name = j;
    stale.handle = other.handle;
    by_name.handle = mfprio_handle_t{};
    uint32_t p_stale = 0, p_name = 0, p_batch = 0;
    const int rc_stale = ops.set_priority(&stale, now, &p_stale);
    check(rc_stale, "set_priority (stale handle)");
    const int rc_name = ops.set_priority(&by_name, now, &p_name);
    // A call the batch refuses as a whole (a bad `now`) writes no per-record
    // status: its return code is then that record's answer.
    constexpr int kUnwritten = 12345;
    int st_batch = kUnwritten;
    const int rc_batch = ops.set_priority_batch(&stale, 1, now, &p_batch, &st_batch);
    check(rc_batch, "set_priority_batch (stale handle)");
    if (st_batch == kUnwritten) st_batch = rc_batch;
    if (rc_stale != rc_name || p_stale != p_name || st_batch != rc_name || p_batch != p_name) {
      std::fprintf(stderr,
                   "fuzz_abi: a handle resolved for another record changed the result: by name %d/%u, "
                   "stale handle %d/%u, batch %d/%u\n",
                   rc_name, p_name, rc_stale, p_stale, st_batch, p_batch);
      abort();
    }
  }
  mfprio_factors_t f{};
  f.struct_size = sizeof f;
  check(ops.job_factors(&j, now, &f), "job_factors");
  char* json = nullptr;
  if (ops.job_factors_json(&j, now, &json) == MFPRIO_OK) ops.free_string(json);
  check(MFPRIO_OK, "job_factors_json");
  mfprio_job_t three[3] = {j, r, forged};
  uint32_t ps[3];
  int st[3];
  check(ops.set_priority_batch(three, 3, now, ps, st), "set_priority_batch");
  check(ops.prioritize(three, 3, &j, 1, now, ps, st), "prioritize");
  if (what < 8) {  // charging writes the store: some inputs only
    check(ops.decay(now, &j, 1), "decay");
    check(ops.job_end(&j, now), "job_end");
  }
  return 0;
}
