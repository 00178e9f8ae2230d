// tres.hpp - trackable resources: weight specs and billing.
//
// A TRES spec is what slurm.conf writes for PriorityWeightTRES and a
// partition's TRESBillingWeights: "CPU=1000,Mem=0.25G,GRES/gpu=3000".
// Names compare case-insensitively and are kept lower-case ("cpu", "mem",
// "node", "gres/gpu", "license/matlab").  Memory is counted in MB, so a
// suffix rescales a weight to "per that unit": Mem=0.25G is 0.25 per GiB,
// i.e. 0.25/1024 per MB.  For other TRES a suffix K, M, G, T, P divides the
// weight by 1024^1..5 (weight per 1024 units, per 1024^2 units, ...).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mfprio {

enum class TresKind : uint8_t { Cpu, Mem, Node, Other };

struct TresWeight {
  std::string name;  // lower-case
  double weight = 0; // per base unit (per MB for mem)
  TresKind kind = TresKind::Other;  // from the name, so hot loops skip string compares
};

// Parses a spec; false with a reason in *why (naming the bad item).
bool parse_tres_spec(const std::string& spec, std::vector<TresWeight>* out, std::string* why,
                     bool allow_negative);

std::string tres_lower(const std::string& s);

// Whether `lower` (a lower-case TRES name) is a TRES type Slurm knows: cpu,
// mem, node, energy, billing, vmem, pages, fs/disk, fs/lustre, or a named one
// gres/<name>, license/<name>, bb/<name>, fs/<name>, ic/<name>; or one of
// `cluster` (the names the conf's AccountingStorageTRES and ClusterTRES list).
bool tres_name_known(const std::string& lower, const std::vector<std::string>& cluster);
// The lower-case names of a comma list "gres/gpu,license/x" or
// "gres/gpu=8,license/x=2" (AccountingStorageTRES, ClusterTRES): the text
// before each '=', blanks trimmed, empty items skipped.
std::vector<std::string> tres_list_names(const std::string& list);

// Slurm's billable TRES (slurm.conf(5) TRESBillingWeights; Slurm 22.05 src/common/assoc_mgr.c, assoc_mgr_tres_weighted): with no weights, the CPU count;
// else the weighted sum, or with MAX_TRES the largest weighted node-level TRES
// (cpu, mem, node, gres/*) plus the sum of the weighted global ones
// (license/*, bb/*, fs/*...).
double billable_tres(const std::vector<TresWeight>& weights, double cpu, double mem_mb,
                     double nodes, const std::vector<std::pair<std::string, double>>& extra,
                     bool max_tres);

}  // namespace mfprio

namespace mfprio {
// Parses resource totals "cpu=240,mem=480G,node=10,gres/gpu=8": counts, with
// K/M/G/T/P multiplying by powers of 1024 (memory is kept in MB, so mem=480G
// is 491520).  False with a reason in *why.
bool parse_tres_counts(const std::string& spec, std::vector<std::pair<std::string, double>>* out,
                       std::string* why);
}  // namespace mfprio
