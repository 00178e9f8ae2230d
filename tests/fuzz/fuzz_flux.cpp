// fuzz_flux.cpp - libFuzzer: the flux-accounting CSV readers and the
// PriorityFluxParameters value (plugin/families/flux).
#include <string>

#include "flux_csv.hpp"
#include "flux_settings.hpp"

using namespace mfprio::flux;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int which = data[0] % 5;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string why;
  switch (which) {
    case 0: {
      std::vector<BankRecord> b;
      (void)read_banks_csv(text, "banks.csv", &b, &why);
      break;
    }
    case 1: {
      std::vector<UserRecord> u;
      (void)read_users_csv(text, "users.csv", &u, &why);
      break;
    }
    case 2: {
      std::vector<QueueRecord> q;
      (void)read_queues_csv(text, "queues.csv", &q, &why);
      break;
    }
    case 3: {
      std::vector<CsvRecord> r;
      (void)split_csv(text, "t.csv", &r, &why);
      break;
    }
    default: {
      Settings s;
      (void)parse_flux_parameters(text, &s, &why);
      int64_t secs = 0;
      (void)parse_slurm_time(text, &secs, &why);
    }
  }
  return 0;
}
