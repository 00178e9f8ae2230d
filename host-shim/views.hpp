// views.hpp - text views of what the plugin returns: sprio (per-job factor
// breakdown as named terms) and sshare (the family's share table).  Pure
// formatting: no plugin calls here, so tests feed rows directly.  Generic:
// no family's words; the columns are whatever terms and share columns the
// plugin names (mfprio.h: mfprio_term_t, mfprio_share_column_t).
//
// sprio: JOBID(15, right) PARTITION(9, left) [-l: USER(8) ACCOUNT(8)]
//   PRIORITY(10), then one column per top-level term (parent -1), in the
//   plugin's order (the union over the rows, first seen first):
//     header  the term's label; width the term's width, else 10; right-aligned,
//             except LIST terms, left-aligned in the short format (Slurm's %20T)
//     LONG    only with -l
//     TEXT    prints `text`
//     RAW     prints `factor` as an integer, with or without -n
//     LIST    prints its children as name=value,... (value: the contribution as
//             an integer; -n: the factor with 7 decimals)
//     other   the contribution as an integer (rounded half away from zero);
//             -n: the factor with 7 decimals
//   PRIORITY is the priority; -n: priority / (2^32-1) with 7 decimals.
//   A row without a term of a column prints it blank.
//   -w: a first "Weights" row: each term column's cell from Weights.
//   This is the generic layout; a family that declares a named layout
//   (layout.hpp) is printed by that layout's module instead.
// sshare: one column per share column, in the table's order: LONG only with
//   -l; TEXT cells print their text; a numeric cell prints its text when the
//   plugin gave one ("" = blank), else the value with `decimals` digits
//   (-1: an integer, rounded half away from zero); INDENT prefixes the row's
//   depth in spaces; LEFT left-aligns (default right); headers are always
//   right-aligned; a header line and a dash line first.
// Widths are minimums (nothing is truncated).  Parsable output (-P): no
// padding, '|' after every field, header first, no dash line.
#pragma once

#include <jansson.h>
#include <mfprio/mfprio.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mfprio::host {

struct SprioRow {
  uint64_t job_id = 0;
  std::string partition, user, account;
  // The record's own fields a layout may print (job file: name, state, submit, deadline).
  std::string name;
  uint32_t state = MFPRIO_JOB_PENDING;
  int64_t submit = 0, start = 0, deadline = 0;
  mfprio_factors_t f{};  // f.term_count = 0: no breakdown (the plugin has no job_factors)
};

// One sprio term column: a top-level term's name, label, flags and width.
struct TermColumn {
  std::string name, label;
  uint32_t flags = 0;  // MFPRIO_TERMF_*
  uint32_t width = 0;  // 0: the default 10
};

// The index of f's top-level term named `name`, or -1.
int find_top_term(const mfprio_factors_t& f, const std::string& name);

// The top-level terms of the rows, in the plugin's order (first seen first).
std::vector<TermColumn> term_columns(const std::vector<SprioRow>& rows);

// A layout for when no row is shown: plugin_info_json's "terms" array
// ([{"name", "label", "flags", "width", "parent"}...], top-level ones), else
// the names of its "weights" object with upper-case labels (a sub-term's
// weight, "SERV.QUEUETIME" beside "SERV", is no column).  Empty when
// neither is present.
std::vector<TermColumn> term_columns_from_info(const std::string& info_json);

// The weights in force, from plugin_info_json (see parse_weights): the cell
// of the Weights row per term name (names compare case-insensitively).
struct Weights {
  bool known = false;
  std::map<std::string, std::string> cells;  // lower-case term name -> cell
  std::string cell(const std::string& term) const;  // "" when absent
};

struct SprioOptions {
  bool long_format = false;
  bool normalized = false;  // -n: factors with 7 decimals
  bool weights = false;     // -w: a "Weights" row first
  bool percent = false;     // --percent: a "Percent" row last (Maui's diagnose -p)
  bool parsable = false;    // -P
  bool header = true;
};

std::string format_sprio(const std::vector<SprioRow>& rows, const std::vector<TermColumn>& columns,
                         const SprioOptions& opt, const Weights& w);
// The same with term_columns(rows).
std::string format_sprio(const std::vector<SprioRow>& rows, const SprioOptions& opt, const Weights& w);

// Reads weights from a plugin_info_json document: the object "weights",
// keyed by term name (a number prints as an integer, a numeric string too;
// another string as is; an object name -> number as name=value,... with %g).
// Keys compare case-insensitively.  known=false when there is no such object.
Weights parse_weights(const std::string& info_json);

// A sub-term's weight as the product it is, for a family that declares
// "view": {"sub_weight_product": true} (Maui's CREDWEIGHT x USERWEIGHT): its
// term's weight times the sub-term's own (weight / the term's).  None when
// the term weighs 0 (no product to show).  sprio --json and explain --json
// write it as "weight_product": [term's, own].
struct WeightProduct {
  double term = 0, own = 0;
};
std::optional<WeightProduct> weight_product(double term_weight, double weight);
void put_weight_product(json_t* term_obj, const WeightProduct& p);
// Each sub-term of a job_factors_json document ("terms": [{"weight",
// "parent"}...]) gets its "weight_product".
void put_weight_products(json_t* factors_doc);

// ---- sshare --------------------------------------------------------------

struct ShareColumn {
  std::string name, label;
  int32_t decimals = -1;  // -1: an integer
  uint32_t width = 0;
  uint32_t flags = 0;     // MFPRIO_COLF_*
};

struct ShareCell {
  double value = 0;
  bool has_text = false;  // the plugin gave text (maybe "": blank)
  std::string text;
};

struct ShareRow {
  int32_t parent = -1;
  uint32_t depth = 0;
  bool is_user = false;
  std::string account, user, partition;
  std::vector<ShareCell> cells;  // one per column
};

struct ShareTable {
  std::vector<ShareColumn> columns;
  std::vector<ShareRow> rows;
  // The column named `name`, or -1.
  int column(const std::string& name) const;
};

struct SshareOptions {
  bool long_format = false;
  bool parsable = false;
  bool no_ending = false;  // -P: no '|' after the last field (Slurm's --parsable2)
  bool header = true;
};

std::string format_sshare(const ShareTable& table, const SshareOptions& opt);

// Copies the plugin's table (valid only until share_table_free).  Throws
// std::runtime_error when the table is malformed (struct_size too small,
// NULL columns or cells with a non-zero count).
ShareTable share_table_from(const mfprio_share_table_t& table);

// "%.Nf" of v; "inf" for infinity, "nan" for NaN.
std::string fixed(double v, int decimals);

// Writes exactly what snprintf(out, cap, "%.*f", decimals, v) writes (the
// C library's correct rounding, exact halves to even, "-0.000000" for a
// negative zero) and returns its length.  Finite |v| < 1e9 with 0..9
// decimals are done here in integer arithmetic on v's exact binary value;
// everything else (inf, nan, larger values, more decimals) goes to
// snprintf.  cap >= 32 for the fast path.
size_t printf_fixed(char* out, size_t cap, double v, int decimals);

// Checks a plugin's table as share_table_from does (same messages), without copying it.
void check_share_table(const mfprio_share_table_t& table);

}  // namespace mfprio::host
