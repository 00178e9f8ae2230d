// layout_slurm2205.hpp - the "slurm-22.05" view layout: Slurm 22.05's sprio
// and sshare, their letters and fields filled from the terms and share
// columns the family declares (plugin_info_json "view", layout.hpp):
//   "terms": slot -> term name, slots S A B F J P Q N T (Slurm's upper-case
//            letters; the lower-case letter reads the same term) and n (the
//            QOS name, a TEXT term)
//   "share_columns": Slurm field (Account User RawShares NormShares RawUsage
//            NormUsage EffectvUsage FairShare LevelFS GrpTRESMins TRESRunMins)
//            -> share_table column
//   "weights": the weight per term name; the TRES term's weight is printed
//            as given (a string such as the conf's "CPU=2000,Mem=1000")
//   "level_fs": false drops LevelFS from sshare -l's default fields.
// A slot the family does not fill prints as a term the row lacks (0).
#pragma once

#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "layout.hpp"
#include "views.hpp"

namespace mfprio::host {

// slot ("A", "n", ...) -> the family's term name; field -> share column.
using SlotTerms = std::map<std::string, std::string>;
using ShareColumns = std::map<std::string, std::string>;

const Layout& slurm2205_layout();
// ---- details (tests and the fuzzer call them directly) -----------------
//
// sprio: a format is Slurm's -o string: text before the first '%' (the
// prefix), then fields "%[.][size]letter" each followed by its suffix text.
// '.' right-justifies; size is the width (0: as wide as the value); every
// value and header is cut to the width, as sprio cuts it.  Letters (Slurm
// 22.05): a/A age, b/B assoc, c cluster, f/F fairshare, i job id, j/J job
// size, N nice, p/P partition factor, q/Q qos, r partition, S site, t/T TRES,
// u user, y/Y priority (lower case: normalized); o account and n QOS name
// as later Slurm has them.  Weighted values print with "%.0f" (exact halves
// go to even), normalized ones "%.7f" (TRES "%.2f"), -n's priority the first
// `width` characters of "%16.14f" of priority / (2^32 - 1).
struct SprioField {
  char letter = 0;
  int width = 0;
  bool right = false;
  std::string suffix;
};
struct SprioFormat {
  std::string prefix;
  std::vector<SprioField> fields;
};
// Throws std::invalid_argument naming an unknown letter.
SprioFormat parse_sprio_format(const std::string& format);
// Slurm's default format: the long one, or the short one without the factor
// columns whose weight is 0 (USER only with -u).
std::string default_sprio_format(bool long_format, bool normalized, bool users, const Weights& w,
                                 const SlotTerms& terms = {});
// The letters, as sprio --helpformat lists them.
std::string sprio_helpformat();
// rows in the given order; opt.weights: the header and the Weights row only.
std::string format_sprio_slurm(const std::vector<SprioRow>& rows, const SprioFormat& f, const SprioOptions& opt,
                               const Weights& w, const SlotTerms& terms = {});
// Sorts rows by Slurm's -S spec ("-y,i": letters, '-' descending).  Throws
// std::invalid_argument naming an unknown letter.
void sort_sprio_rows(std::vector<SprioRow>* rows, const std::string& spec, const SlotTerms& terms = {});

// sshare: fields by Slurm's names (prefix match, case-insensitive, in
// Slurm's field order), each with an optional %WIDTH (negative: left).
struct ShareField {
  std::string name;   // Slurm's field name
  int len = 0;        // Slurm's signed width (negative: left-justified)
};
// Throws std::invalid_argument: `Invalid field requested: "X"`.
std::vector<ShareField> parse_sshare_format(const std::string& list);
// Slurm's default list for the flags (fair_tree: Fair Tree in force).
std::string default_sshare_format(bool long_format, bool partitions, bool fair_tree);
std::string sshare_helpformat();
struct SshareSlurmOptions {
  bool parsable = false, no_ending = false, header = true;
};
// Slurm's print_fields: each value padded to |len| and followed by a space
// (a string longer than the width ends in '+'; a number too wide for %f
// switches to %e), or '|'-separated.  RawUsage is truncated to an integer.
std::string format_sshare_slurm(const ShareTable& table, const std::vector<ShareField>& fields,
                                const SshareSlurmOptions& opt, const ShareColumns& columns = {});
// The same straight from the plugin's table (checked with check_share_table),
// written to `out` in 64 KiB pieces: no copy of the table, no string per
// cell.  Only the rows `keep` accepts (nullptr: every row).  Byte-identical
// to format_sshare_slurm(share_table_from(table) minus the rows not kept).
void write_sshare_slurm(const mfprio_share_table_t& table, const std::vector<ShareField>& fields,
                        const SshareSlurmOptions& opt, const std::function<bool(const mfprio_share_row_t&)>& keep,
                        std::FILE* out, const ShareColumns& columns = {});

}  // namespace mfprio::host
