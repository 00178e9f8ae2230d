// The ABI header compiles as C++ too, and its structs have the layout the
// plugins were built with (LP64 sizes: a change here is an ABI change and
// needs MFPRIO_ABI_VERSION bumped).
#include "mfprio/mfprio.h"

#include <cstddef>
#include <cstdio>
#include <cstring>

static_assert(sizeof(mfprio_ops_t) == MFPRIO_OPS_COUNT * sizeof(void (*)(void)),
              "mfprio_ops_t is one function pointer per MFPRIO_OPS_SYMBOLS entry");
static_assert(MFPRIO_OPS_REQUIRED > 0 && MFPRIO_OPS_REQUIRED <= MFPRIO_OPS_COUNT,
              "the required operations are a prefix of MFPRIO_OPS_SYMBOLS");
static_assert(MFPRIO_ABI_VERSION == 2u, "this check describes ABI v2");
static_assert(sizeof(void*) != 8 || sizeof(mfprio_job_t) == 176, "a job record is 176 bytes on LP64 hosts");
static_assert(sizeof(void*) != 8 || sizeof(mfprio_term_t) == 120, "a term is 120 bytes on LP64 hosts");
static_assert(sizeof(void*) != 8 || sizeof(mfprio_share_column_t) == 60, "a share column is 60 bytes");
static_assert(sizeof(void*) != 8 || sizeof(mfprio_share_row_t) == 48, "a share row is 48 bytes on LP64 hosts");
static_assert(sizeof(mfprio_factors_t) ==
                  offsetof(mfprio_factors_t, terms) + MFPRIO_MAX_TERMS * sizeof(mfprio_term_t),
              "terms is the last member of mfprio_factors_t (a bigger MFPRIO_MAX_TERMS only grows it)");
static_assert(offsetof(mfprio_job_t, struct_size) == 0 && offsetof(mfprio_factors_t, struct_size) == 0 &&
                  offsetof(mfprio_share_table_t, struct_size) == 0 && offsetof(mfprio_host_t, struct_size) == 0 &&
                  offsetof(mfprio_stats_t, struct_size) == 0,
              "every extensible struct begins with its size");

// The member order of mfprio_ops_t is the order of MFPRIO_OPS_SYMBOLS.
#define SLOT(member) (offsetof(mfprio_ops_t, member) / sizeof(void (*)(void)))

int main() {
  const char* names[] = {MFPRIO_OPS_SYMBOLS};
  if (sizeof names / sizeof names[0] != MFPRIO_OPS_COUNT) {
    std::puts("MFPRIO_OPS_SYMBOLS and MFPRIO_OPS_COUNT disagree");
    return 1;
  }
  const struct {
    const char* name;
    size_t slot;
  } members[] = {
      {"init", SLOT(init)},
      {"fini", SLOT(fini)},
      {"set_priority", SLOT(set_priority)},
      {"decay", SLOT(decay)},
      {"errmsg", SLOT(errmsg)},
      {"job_resolve", SLOT(job_resolve)},
      {"set_priority_batch", SLOT(set_priority_batch)},
      {"prioritize", SLOT(prioritize)},
      {"job_end", SLOT(job_end)},
      {"job_end_batch", SLOT(job_end_batch)},
      {"job_factors", SLOT(job_factors)},
      {"job_factors_json", SLOT(job_factors_json)},
      {"share_table", SLOT(share_table)},
      {"share_table_free", SLOT(share_table_free)},
      {"share_table_json", SLOT(share_table_json)},
      {"plugin_stats", SLOT(plugin_stats)},
      {"plugin_info_json", SLOT(plugin_info_json)},
      {"free_string", SLOT(free_string)},
      {"set_accounts", SLOT(set_accounts)},
  };
  static_assert(sizeof members / sizeof members[0] == MFPRIO_OPS_COUNT, "one entry per operation");
  int bad = 0;
  for (const auto& m : members)
    if (std::strcmp(names[m.slot], m.name) != 0) {
      std::printf("mfprio_ops_t.%s is slot %zu, but MFPRIO_OPS_SYMBOLS names '%s' there\n", m.name, m.slot,
                  names[m.slot]);
      bad = 1;
    }
  if (SLOT(errmsg) + 1 != MFPRIO_OPS_REQUIRED) {  // init, fini, set_priority, decay, errmsg
    std::puts("the required operations are not the first MFPRIO_OPS_REQUIRED members");
    bad = 1;
  }
  return bad;
}
