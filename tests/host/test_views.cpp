// test_views.cpp - sprio and sshare text layout (views.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <stdexcept>

#include "test_util.hpp"
#include "layout.hpp"
#include "layout_slurm2205.hpp"
#include "views.hpp"

using namespace mfprio::host;

namespace {

using mfprio::test::fields;
using mfprio::test::lines;

// Appends a term to f (a builder, so rows read like the sprio they make).
mfprio_term_t& add_term(mfprio_factors_t& f, const char* name, const char* label, double factor, double weight,
                        double contribution, uint32_t flags = 0, uint32_t width = 0, int32_t parent = -1) {
  mfprio_term_t& t = f.terms[f.term_count++];
  t = mfprio_term_t{};
  std::snprintf(t.name, sizeof t.name, "%s", name);
  std::snprintf(t.label, sizeof t.label, "%s", label);
  t.factor = factor;
  t.weight = weight;
  t.contribution = contribution;
  t.flags = flags;
  t.width = width;
  t.parent = parent;
  return t;
}

// The multifactor family's terms, in its order, as mfprio.h v2 carries them.
SprioRow sample_row() {
  SprioRow r;
  r.job_id = 42;
  r.partition = "batch";
  r.user = "alice";
  r.account = "physics";
  r.f.struct_size = sizeof r.f;
  r.f.priority = 1851;
  add_term(r.f, "site", "SITE", 3, 1, 3, MFPRIO_TERMF_RAW);
  add_term(r.f, "age", "AGE", 0.5, 1000, 500.4);
  add_term(r.f, "assoc", "ASSOC", 0, 0, 0, MFPRIO_TERMF_ZERO_WEIGHT);
  add_term(r.f, "fairshare", "FAIRSHARE", 0.25, 4000, 1000.6);
  add_term(r.f, "jobsize", "JOBSIZE", 0.125, 100, 12.5);
  add_term(r.f, "partition", "PARTITION", 1, 200, 200);
  std::strcpy(add_term(r.f, "qosname", "QOSNAME", 0, 0, 0, MFPRIO_TERMF_TEXT | MFPRIO_TERMF_LONG).text, "normal");
  add_term(r.f, "qos", "QOS", 0.3333333333, 300, 100);
  add_term(r.f, "nice", "NICE", 10, -1, -10, MFPRIO_TERMF_RAW | MFPRIO_TERMF_LONG, 11);
  const int32_t tres = static_cast<int32_t>(r.f.term_count);
  add_term(r.f, "tres", "TRES", 0, 0, 312.5, MFPRIO_TERMF_LIST, 20);
  add_term(r.f, "cpu", "", 0.0625, 1000, 62.5, 0, 0, tres);
  add_term(r.f, "gres/gpu", "", 0.25, 1000, 250, 0, 0, tres);
  return r;
}

TEST(SprioView, ShortColumnsMatchSprio) {
  auto l = lines(format_sprio({sample_row()}, SprioOptions{}, Weights{}));
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(fields(l[0]), (std::vector<std::string>{"JOBID", "PARTITION", "PRIORITY", "SITE", "AGE", "ASSOC",
                                                    "FAIRSHARE", "JOBSIZE", "PARTITION", "QOS", "TRES"}));
  EXPECT_EQ(fields(l[1]), (std::vector<std::string>{"42", "batch", "1851", "3", "500", "0", "1001", "13", "200", "100",
                                                    "cpu=63,gres/gpu=250"}));
  // Right-aligned JOBID in 15 columns, then a left-aligned 9-wide partition.
  EXPECT_EQ(l[1].substr(0, 25), "             42 batch    ");
  EXPECT_EQ(l[0].substr(0, 25), "          JOBID PARTITION");
}

TEST(SprioView, LongColumnsAddUserAccountQosNameNice) {
  SprioOptions o;
  o.long_format = true;
  auto l = lines(format_sprio({sample_row()}, o, Weights{}));
  EXPECT_EQ(fields(l[0]), (std::vector<std::string>{"JOBID", "PARTITION", "USER", "ACCOUNT", "PRIORITY", "SITE", "AGE",
                                                    "ASSOC", "FAIRSHARE", "JOBSIZE", "PARTITION", "QOSNAME", "QOS",
                                                    "NICE", "TRES"}));
  EXPECT_EQ(fields(l[1]), (std::vector<std::string>{"42", "batch", "alice", "physics", "1851", "3", "500", "0", "1001",
                                                    "13", "200", "normal", "100", "10", "cpu=63,gres/gpu=250"}));
}

TEST(SprioView, NormalizedFactorsHaveSevenDecimals) {
  SprioOptions o;
  o.normalized = true;
  auto l = lines(format_sprio({sample_row()}, o, Weights{}));
  EXPECT_EQ(fields(l[1]), (std::vector<std::string>{"42", "batch", "0.0000004", "3", "0.5000000", "0.0000000",
                                                    "0.2500000", "0.1250000", "1.0000000", "0.3333333",
                                                    "cpu=0.0625000,gres/gpu=0.2500000"}));
}

TEST(SprioView, WeightsRowComesFirst) {
  SprioOptions o;
  o.weights = true;
  Weights w;
  w.known = true;
  w.cells = {{"age", "1000"}, {"assoc", "0"}, {"fairshare", "2000"}, {"jobsize", "3"},
             {"partition", "4"},  {"qos", "5"},   {"tres", "CPU=1000"}};
  auto l = lines(format_sprio({sample_row()}, o, w));
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(fields(l[1]), (std::vector<std::string>{"Weights", "1000", "0", "2000", "3", "4", "5", "CPU=1000"}));
  EXPECT_EQ(fields(l[2])[0], "42");
}

TEST(SprioView, ParsableHasBarAfterEveryField) {
  SprioOptions o;
  o.parsable = true;
  auto l = lines(format_sprio({sample_row()}, o, Weights{}));
  EXPECT_EQ(l[0], "JOBID|PARTITION|PRIORITY|SITE|AGE|ASSOC|FAIRSHARE|JOBSIZE|PARTITION|QOS|TRES|");
  EXPECT_EQ(l[1], "42|batch|1851|3|500|0|1001|13|200|100|cpu=63,gres/gpu=250|");
}

TEST(SprioView, NoHeaderOption) {
  SprioOptions o;
  o.header = false;
  auto l = lines(format_sprio({sample_row()}, o, Weights{}));
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(fields(l[0])[0], "42");
}

TEST(Weights, ReadFromWeightsObject) {
  Weights w = parse_weights(R"({"weights": {"Age": 1000, "fairshare": "2000", "QOS": 7, "tres": {"CPU": 1000}}})");
  EXPECT_TRUE(w.known);
  EXPECT_EQ(w.cell("age"), "1000");
  EXPECT_EQ(w.cell("fairshare"), "2000");
  EXPECT_EQ(w.cell("qos"), "7");
  EXPECT_EQ(w.cell("tres"), "CPU=1000");
}

TEST(Weights, AFamilysConfKeysAreNotWeights) {
  // The host reads no family's keys: weights come from the "weights" object only.
  Weights w = parse_weights(R"({"PriorityWeightAge": 5, "PriorityWeightTRES": "CPU=1,Mem=2"})");
  EXPECT_FALSE(w.known);
  EXPECT_EQ(w.cell("age"), "");
}

TEST(ViewInfo, TheLayoutTermsWeightsAndShareColumnsAFamilyDeclares) {
  const ViewInfo v = parse_view_info(R"({"weights": {"age": 1},
      "view": {"layout": "slurm-22.05", "terms": {"A": "waited", "T": "res", "x": 3},
               "weights": {"waited": 70, "res": "CPU=2000,Mem=1000"},
               "share_columns": {"RawUsage": "used"}, "level_fs": false}})");
  EXPECT_EQ(v.layout, "slurm-22.05");
  EXPECT_EQ(v.terms.at("A"), "waited");
  EXPECT_EQ(v.terms.count("x"), 0u);  // not a name
  EXPECT_EQ(v.weights.cell("waited"), "70");
  EXPECT_EQ(v.weights.cell("age"), "");  // the view's weights replace the top-level ones
  EXPECT_EQ(v.share_columns.at("RawUsage"), "used");
  EXPECT_FALSE(v.flag("level_fs", true));
  EXPECT_TRUE(v.flag("absent", true));
  ASSERT_NE(find_layout(v.layout), nullptr);
  EXPECT_STREQ(find_layout("SLURM-22.05")->name(), "slurm-22.05");
  EXPECT_EQ(find_layout("qstat-9"), nullptr);  // unknown: the generic layout
  EXPECT_EQ(find_layout(""), nullptr);
  // An older plugin: no "view", the top-level weights.
  const ViewInfo old = parse_view_info(R"({"weights": {"age": 1}})");
  EXPECT_EQ(old.layout, "");
  EXPECT_EQ(old.weights.cell("age"), "1");
}

// plugin_info_json's "conf_names": an array of names per kind; a plugin
// built before the arrays gave one comma-separated string, read too.
TEST(ViewInfo, ConfNamesAreArraysAndTheOlderCommaStringIsReadToo) {
  const auto names = parse_conf_names(R"({"conf_names": {"partitions": ["idle", "q,1", ""],
      "users": "u1,,zed", "accounts": ["a", 7], "qos": 3}})");
  EXPECT_EQ(names.at("partitions"), (std::vector<std::string>{"idle", "q,1"}));  // a comma is part of a name
  EXPECT_EQ(names.at("users"), (std::vector<std::string>{"u1", "zed"}));
  EXPECT_EQ(names.at("accounts"), (std::vector<std::string>{"a"}));  // not a string: left out
  EXPECT_EQ(names.count("qos"), 0u);
  EXPECT_TRUE(parse_conf_names(R"({"weights": {}})").empty());
  EXPECT_TRUE(parse_conf_names("not json").empty());
}

TEST(ViewInfo, SlurmLettersReadTheTermsTheFamilyNames) {
  // A family whose age term is called "waited": %A reads it; an unfilled slot prints 0.
  SprioRow r;
  r.job_id = 7;
  r.f.priority = 70;
  r.f.term_count = 1;
  std::snprintf(r.f.terms[0].name, sizeof r.f.terms[0].name, "waited");
  r.f.terms[0].parent = -1;
  r.f.terms[0].factor = 0.5;
  r.f.terms[0].contribution = 70;
  SprioOptions o;
  o.header = false;
  const SlotTerms terms = {{"A", "waited"}, {"T", "res"}};
  Weights w;
  w.cells = {{"waited", "140"}, {"res", "CPU=2000,Mem=1000"}};
  EXPECT_EQ(format_sprio_slurm({r}, parse_sprio_format("%i %A %a %F"), o, w, terms), "7 70 0.5000000 0\n");
  EXPECT_EQ(format_sprio_slurm({r}, parse_sprio_format("%i %A"), o, w), "7 0\n");  // no terms declared
  o.weights = true;
  EXPECT_EQ(format_sprio_slurm({r}, parse_sprio_format("%i|%A|%T"), o, w, terms), "Weights|140|CPU=2000,Mem=1000\n");
  EXPECT_EQ(default_sprio_format(false, false, false, w, terms), "%.15i %9r %.10Y %.10S %.10A %.20T");
}

TEST(Weights, UnknownWhenAbsentOrInvalid) {
  EXPECT_FALSE(parse_weights(R"({"flags": []})").known);
  EXPECT_FALSE(parse_weights("not json").known);
}

// A row of the classic tree, as the multifactor family knows it.
struct TreeRow {
  uint32_t depth = 0;
  bool is_user = false, is_root = false, shares_parent = false;
  std::string account, user;
  uint32_t raw_shares = 0;
  double norm_shares = 0, raw_usage = 0, norm_usage = 0, eff_usage = 0, level_fs = 0, fairshare = 0;
};

// The multifactor family's share columns (mfprio.h v2 shapes).
const mfprio_share_column_t kSlurmColumns[] = {
    {"account", "Account", -1, 20, MFPRIO_COLF_TEXT | MFPRIO_COLF_INDENT | MFPRIO_COLF_LEFT},
    {"user", "User", -1, 10, MFPRIO_COLF_TEXT},
    {"raw_shares", "RawShares", -1, 10, 0},
    {"norm_shares", "NormShares", 6, 11, 0},
    {"raw_usage", "RawUsage", -1, 11, 0},
    {"norm_usage", "NormUsage", 6, 11, MFPRIO_COLF_LONG},
    {"eff_usage", "EffectvUsage", 6, 13, 0},
    {"fairshare", "FairShare", 6, 10, 0},
    {"level_fs", "LevelFS", 6, 10, MFPRIO_COLF_LONG},
    {"grp_tres_mins", "GrpTRESMins", -1, 30, MFPRIO_COLF_TEXT | MFPRIO_COLF_LONG},
    {"tres_run_mins", "TRESRunMins", -1, 30, MFPRIO_COLF_TEXT | MFPRIO_COLF_LONG},
};
constexpr uint32_t kSlurmColumnCount = sizeof kSlurmColumns / sizeof kSlurmColumns[0];

// Builds the plugin's table for `rows` and copies it as the host does.
ShareTable slurm_table(const std::vector<TreeRow>& rows) {
  std::vector<mfprio_share_row_t> abi(rows.size());
  std::vector<std::vector<mfprio_share_cell_t>> cells(rows.size(), std::vector<mfprio_share_cell_t>(kSlurmColumnCount));
  int32_t last_account[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
  for (size_t i = 0; i < rows.size(); ++i) {
    const TreeRow& r = rows[i];
    mfprio_share_row_t& a = abi[i];
    a.depth = r.depth;
    a.parent = r.is_root || r.depth == 0 ? -1 : last_account[r.depth - 1];
    if (!r.is_user && r.depth < 8) last_account[r.depth] = static_cast<int32_t>(i);
    a.is_user = r.is_user;
    a.account = r.account.c_str();
    a.user = r.is_user ? r.user.c_str() : nullptr;
    auto& c = cells[i];
    c[0].text = r.account.c_str();
    c[1].text = r.is_user ? r.user.c_str() : "";
    if (r.is_root) c[2].text = "";
    else if (r.shares_parent) c[2].text = "parent";
    else c[2].value = r.raw_shares;
    c[3].value = r.norm_shares;
    c[4].value = r.raw_usage;
    c[5].value = r.norm_usage;
    c[6].value = r.eff_usage;
    if (r.is_user) c[7].value = r.fairshare;
    else c[7].text = "";
    if (r.is_root) c[8].text = "";
    else c[8].value = r.level_fs;
    c[9].text = "";
    c[10].text = "";
    a.cells = c.data();
  }
  mfprio_share_table_t t{};
  t.struct_size = sizeof t;
  t.column_count = kSlurmColumnCount;
  t.row_count = abi.size();
  t.columns = kSlurmColumns;
  t.rows = abi.data();
  return share_table_from(t);
}

ShareTable sample_tree() {
  std::vector<TreeRow> rows(4);
  rows[0].is_root = true;
  rows[0].account = "root";
  rows[0].norm_shares = 1;
  rows[0].raw_usage = 1000.6;
  rows[0].eff_usage = 1;
  rows[1].depth = 1;
  rows[1].account = "physics";
  rows[1].raw_shares = 40;
  rows[1].norm_shares = 0.4;
  rows[1].raw_usage = 600;
  rows[1].norm_usage = 0.6;
  rows[1].eff_usage = 0.6;
  rows[1].level_fs = 0.6666667;
  rows[2].depth = 2;
  rows[2].is_user = true;
  rows[2].account = "physics";
  rows[2].user = "alice";
  rows[2].raw_shares = 1;
  rows[2].norm_shares = 1;
  rows[2].raw_usage = 600;
  rows[2].fairshare = 0.5;
  rows[2].level_fs = 1.5;
  rows[3] = rows[2];
  rows[3].user = "bob";
  rows[3].shares_parent = true;
  rows[3].raw_usage = 0;
  rows[3].level_fs = INFINITY;
  rows[3].fairshare = 1;
  return slurm_table(rows);
}

TEST(SshareView, ColumnsIndentationAndBlanks) {
  auto l = lines(format_sshare(sample_tree(), SshareOptions{}));
  ASSERT_EQ(l.size(), 6u);
  EXPECT_EQ(fields(l[0]), (std::vector<std::string>{"Account", "User", "RawShares", "NormShares", "RawUsage",
                                                    "EffectvUsage", "FairShare"}));
  EXPECT_EQ(l[1].substr(0, 21), "-------------------- ");
  EXPECT_EQ(l[2].substr(0, 5), "root ");
  EXPECT_EQ(fields(l[2]), (std::vector<std::string>{"root", "1.000000", "1001", "1.000000"}));  // no shares, no FS
  EXPECT_EQ(l[3].substr(0, 9), " physics ");
  EXPECT_EQ(fields(l[3]), (std::vector<std::string>{"physics", "40", "0.400000", "600", "0.600000"}));
  EXPECT_EQ(l[4].substr(0, 10), "  physics ");
  EXPECT_EQ(fields(l[4]), (std::vector<std::string>{"physics", "alice", "1", "1.000000", "600", "0.000000", "0.500000"}));
  EXPECT_EQ(fields(l[5])[2], "parent");
}

TEST(SshareView, LongAddsNormUsageAndLevelFs) {
  SshareOptions o;
  o.long_format = true;
  auto l = lines(format_sshare(sample_tree(), o));
  EXPECT_EQ(fields(l[0]), (std::vector<std::string>{"Account", "User", "RawShares", "NormShares", "RawUsage",
                                                    "NormUsage", "EffectvUsage", "FairShare", "LevelFS", "GrpTRESMins",
                                                    "TRESRunMins"}));
  EXPECT_EQ(fields(l[3]), (std::vector<std::string>{"physics", "40", "0.400000", "600", "0.600000", "0.600000",
                                                    "0.666667"}));
  EXPECT_EQ(fields(l[5]).back(), "inf");
}

TEST(SshareView, ParsableHeaderAndTrailingBar) {
  SshareOptions o;
  o.parsable = true;
  auto l = lines(format_sshare(sample_tree(), o));
  ASSERT_EQ(l.size(), 5u);  // no dash line
  EXPECT_EQ(l[0], "Account|User|RawShares|NormShares|RawUsage|EffectvUsage|FairShare|");
  EXPECT_EQ(l[1], "root|||1.000000|1001|1.000000||");
  EXPECT_EQ(l[2], " physics||40|0.400000|600|0.600000||");
  EXPECT_EQ(l[4], "  physics|bob|parent|1.000000|0|0.000000|1.000000|");
}

TEST(SshareView, ShareRowsCopiedFromAbiRows) {
  const mfprio_share_column_t cols[2] = {{"user", "User", -1, 10, MFPRIO_COLF_TEXT}, {"raw_shares", "RawShares", -1, 10, 0}};
  const mfprio_share_cell_t c0[2] = {{0, ""}, {0, ""}};
  const mfprio_share_cell_t c1[2] = {{0, "u"}, {3, nullptr}};
  mfprio_share_row_t r[2] = {};
  r[0].parent = -1;
  r[0].account = "root";
  r[0].cells = c0;
  r[1].parent = 0;
  r[1].depth = 1;
  r[1].is_user = 1;
  r[1].account = "root";
  r[1].user = "u";
  r[1].cells = c1;
  mfprio_share_table_t t{};
  t.struct_size = sizeof t;
  t.column_count = 2;
  t.row_count = 2;
  t.columns = cols;
  t.rows = r;
  ShareTable rows = share_table_from(t);
  ASSERT_EQ(rows.rows.size(), 2u);
  EXPECT_EQ(rows.rows[0].parent, -1);
  EXPECT_EQ(rows.rows[1].parent, 0);
  EXPECT_TRUE(rows.rows[1].is_user);
  EXPECT_EQ(rows.rows[1].user, "u");
  EXPECT_EQ(rows.rows[1].cells[1].value, 3);
  EXPECT_FALSE(rows.rows[1].cells[1].has_text);
  EXPECT_TRUE(rows.rows[0].cells[1].has_text);
  EXPECT_EQ(rows.column("raw_shares"), 1);
  EXPECT_EQ(rows.column("nope"), -1);
}

TEST(SshareView, MalformedTablesAreRefused) {
  mfprio_share_table_t t{};
  t.struct_size = 8;
  EXPECT_THROW(share_table_from(t), std::runtime_error);
  t.struct_size = sizeof t;
  t.column_count = 1;  // but no columns array
  EXPECT_THROW(share_table_from(t), std::runtime_error);
  const mfprio_share_column_t col = {"x", "X", 2, 5, 0};
  mfprio_share_row_t row{};
  t.columns = &col;
  t.row_count = 1;
  t.rows = &row;  // a row without cells
  EXPECT_THROW(share_table_from(t), std::runtime_error);
}

// A family with other columns (Grid Engine's share tree) prints them as named.
TEST(SshareView, ColumnsAreTheFamilysOwn) {
  const mfprio_share_column_t cols[] = {
      {"node", "Node", -1, 8, MFPRIO_COLF_TEXT | MFPRIO_COLF_INDENT | MFPRIO_COLF_LEFT},
      {"shares", "Shares", -1, 7, 0},
      {"level", "Level%", 2, 7, 0},
      {"tickets", "Tickets", -1, 9, MFPRIO_COLF_LONG},
  };
  const mfprio_share_cell_t root[] = {{0, "Root"}, {0, ""}, {100, nullptr}, {1000.5, nullptr}};
  const mfprio_share_cell_t dept[] = {{0, "dept"}, {25, nullptr}, {12.345, nullptr}, {0, "n/a"}};
  mfprio_share_row_t rows[2] = {};
  rows[0].parent = -1;
  rows[0].account = "";
  rows[0].cells = root;
  rows[1].parent = 0;
  rows[1].depth = 1;
  rows[1].account = "";
  rows[1].cells = dept;
  mfprio_share_table_t t{};
  t.struct_size = sizeof t;
  t.column_count = 4;
  t.row_count = 2;
  t.columns = cols;
  t.rows = rows;
  const ShareTable table = share_table_from(t);
  auto l = lines(format_sshare(table, SshareOptions{}));
  ASSERT_EQ(l.size(), 4u);
  EXPECT_EQ(l[0], "    Node  Shares  Level%");
  EXPECT_EQ(l[1], "-------- ------- -------");
  EXPECT_EQ(l[2], "Root              100.00");
  EXPECT_EQ(l[3], " dept         25   12.35");
  SshareOptions lo;
  lo.long_format = true;
  lo.parsable = true;
  l = lines(format_sshare(table, lo));
  EXPECT_EQ(l[0], "Node|Shares|Level%|Tickets|");
  EXPECT_EQ(l[1], "Root||100.00|1001|");
  EXPECT_EQ(l[2], " dept|25|12.35|n/a|");
}

// A family with its own vocabulary (Maui's service and resource terms).
SprioRow maui_row(uint64_t id, double qtime, bool with_xfactor) {
  SprioRow r;
  r.job_id = id;
  r.partition = "batch";
  r.f.priority = static_cast<uint32_t>(qtime + 7);
  const int32_t serv = static_cast<int32_t>(r.f.term_count);
  add_term(r.f, "SERV", "SERV", 0, 1, qtime + (with_xfactor ? 2 : 0), 0, 8);
  add_term(r.f, "SERV.QUEUETIME", "QTIME", qtime, 1, qtime, 0, 0, serv);
  if (with_xfactor) add_term(r.f, "SERV.XFACTOR", "XFCTR", 2, 1, 2, 0, 0, serv);
  add_term(r.f, "CRED", "CRED", 0.5, 10, 5, MFPRIO_TERMF_CAPPED);
  add_term(r.f, "USAGE", "USAGE", 0, 0, 0, MFPRIO_TERMF_ZERO_WEIGHT | MFPRIO_TERMF_LONG);
  return r;
}

TEST(SprioView, TermsAreTheFamilysOwn) {
  std::vector<SprioRow> rows = {maui_row(1, 100, true), maui_row(2, 40, false)};
  auto l = lines(format_sprio(rows, SprioOptions{}, Weights{}));
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[0], "          JOBID PARTITION   PRIORITY     SERV       CRED");
  EXPECT_EQ(l[1], "              1 batch            107      102          5");
  SprioOptions o;
  o.long_format = true;
  o.normalized = true;
  o.parsable = true;
  l = lines(format_sprio(rows, o, Weights{}));
  EXPECT_EQ(l[0], "JOBID|PARTITION|USER|ACCOUNT|PRIORITY|SERV|CRED|USAGE|");
  EXPECT_EQ(l[2], "2|batch|||0.0000000|0.0000000|0.5000000|0.0000000|");
}

TEST(SprioView, ColumnsAreTheUnionOfTheRowsTermsAMissingTermIsBlank) {
  SprioRow a, b;
  a.job_id = 1;
  b.job_id = 2;
  add_term(a.f, "x", "X", 0, 0, 1);
  add_term(b.f, "x", "X", 0, 0, 2);
  add_term(b.f, "y", "Y", 0, 0, 3);
  SprioOptions o;
  o.parsable = true;
  auto l = lines(format_sprio({a, b}, o, Weights{}));
  EXPECT_EQ(l[0], "JOBID|PARTITION|PRIORITY|X|Y|");
  EXPECT_EQ(l[1], "1||0|1||");
  EXPECT_EQ(l[2], "2||0|2|3|");
}

TEST(SprioView, NoTermsMeansPriorityOnly) {
  SprioRow r;
  r.job_id = 9;
  r.partition = "p";
  r.f.priority = 77;
  auto l = lines(format_sprio({r}, SprioOptions{}, Weights{}));
  EXPECT_EQ(l[0], "          JOBID PARTITION   PRIORITY");
  EXPECT_EQ(l[1], "              9 p                 77");
}

TEST(SprioView, ListAlignsLeftInShortAndRightInLong) {
  SprioRow r = sample_row();
  auto s = lines(format_sprio({r}, SprioOptions{}, Weights{}));
  EXPECT_EQ(s[1].substr(s[1].size() - 20), " cpu=63,gres/gpu=250");  // left: nothing after it (trimmed)
  EXPECT_EQ(s[1].find("cpu="), s[0].find("TRES") - 16);              // starts where the 20-wide column starts
  EXPECT_EQ(s[0].substr(s[0].size() - 21), "                 TRES");
  SprioOptions o;
  o.long_format = true;
  auto l = lines(format_sprio({r}, o, Weights{}));
  EXPECT_EQ(l[1].substr(l[1].size() - 21), "  cpu=63,gres/gpu=250");  // right-aligned in 20
  EXPECT_EQ(l[1].find("normal"), l[0].find("QOSNAME") + 1);           // "   normal" under " QOSNAME"
}

TEST(SprioView, LayoutFromPluginInfoWhenNoRowIsShown) {
  const std::string info =
      R"({"weights": {"age": 10}, "terms": [{"name": "site", "label": "SITE", "flags": 4, "parent": -1},)"
      R"( {"name": "cpu", "label": "", "parent": 3}, {"name": "nice", "label": "NICE", "flags": 6, "width": 11}]})";
  auto cols = term_columns_from_info(info);
  ASSERT_EQ(cols.size(), 2u);
  EXPECT_EQ(cols[0].name, "site");
  EXPECT_EQ(cols[1].width, 11u);
  SprioOptions o;
  o.long_format = true;
  o.weights = true;
  o.parsable = true;
  auto l = lines(format_sprio({}, cols, o, parse_weights(R"({"weights": {"nice": 1}})")));
  EXPECT_EQ(l[0], "JOBID|PARTITION|USER|ACCOUNT|PRIORITY|SITE|NICE|");
  EXPECT_EQ(l[1], "Weights||||||1|");
  // Without "terms": the weights' names, upper-cased.
  cols = term_columns_from_info(R"({"weights": {"age": 1, "tres": "CPU=1"}})");
  ASSERT_EQ(cols.size(), 2u);
  EXPECT_EQ(cols[0].label, "AGE");
  EXPECT_EQ(cols[1].label, "TRES");
  // A sub-term's weight beside its term's is no column of its own.
  cols = term_columns_from_info(R"({"weights": {"SERV": 1, "SERV.QUEUETIME": 5, "tres.cpu": 2}})");
  ASSERT_EQ(cols.size(), 2u);
  EXPECT_EQ(cols[0].name, "SERV");
  EXPECT_EQ(cols[1].name, "tres.cpu");
  EXPECT_TRUE(term_columns_from_info("nope").empty());
}

TEST(Weights, ObjectWeightsPrintAsNameValueList) {
  Weights w = parse_weights(R"({"weights": {"tres": {"CPU": 1000, "Mem": "0.5"}, "x": true}})");
  EXPECT_EQ(w.cell("TRES"), "CPU=1000,Mem=0.5");
  EXPECT_EQ(w.cell("x"), "");
  EXPECT_EQ(w.cell("absent"), "");
}

TEST(Fixed, InfinityAndRounding) {
  EXPECT_EQ(fixed(INFINITY, 6), "inf");
  EXPECT_EQ(fixed(0.1234567, 6), "0.123457");
  EXPECT_EQ(fixed(NAN, 6), "nan");
}

}  // namespace

namespace mfprio::host {
namespace {

TEST(SprioPercent, EachTermsShareOfTheListedPrioritiesAddsUpTo100) {
  auto row = [](uint64_t id, double a, double b) {
    SprioRow r;
    r.job_id = id;
    r.f.struct_size = sizeof r.f;
    r.f.term_count = 3;
    std::snprintf(r.f.terms[0].name, sizeof r.f.terms[0].name, "SERV");
    std::snprintf(r.f.terms[0].label, sizeof r.f.terms[0].label, "SERV");
    r.f.terms[0].contribution = a;
    r.f.terms[0].parent = -1;
    std::snprintf(r.f.terms[1].name, sizeof r.f.terms[1].name, "FS");
    std::snprintf(r.f.terms[1].label, sizeof r.f.terms[1].label, "FS");
    r.f.terms[1].contribution = b;
    r.f.terms[1].parent = -1;
    std::snprintf(r.f.terms[2].name, sizeof r.f.terms[2].name, "SERV.QUEUETIME");
    r.f.terms[2].contribution = a;
    r.f.terms[2].parent = 0;  // a part of SERV: not counted twice
    r.f.priority = a + b > 0 ? static_cast<uint32_t>(a + b) : 0u;  // a negative sum is clamped, as a family does
    return r;
  };
  std::vector<SprioRow> rows = {row(1, 300, 100), row(2, 100, -500)};
  SprioOptions opt;
  opt.parsable = true;
  opt.percent = true;
  const std::string out = format_sprio(rows, opt, Weights{});
  // SERV: (300 + 100) / 1000; FS: (100 + 500) / 1000.
  EXPECT_NE(out.find("Percent|||40.0|60.0|"), std::string::npos) << out;
  // Each job's cells are diagnose -p's: its share of that job's
  // priority, then the value.
  EXPECT_NE(out.find("\n1||400|75.0(300)|25.0(100)|\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\n2||0|16.7(100)|83.3(-500)|\n"), std::string::npos) << out;
}

}  // namespace
}  // namespace mfprio::host

// ---- Slurm 22.05 layouts (format_sprio_slurm, format_sshare_slurm) ---------
namespace {

// What priority/multifactor declares in plugin_info_json's "view".
const SlotTerms& mf_terms() {
  static const SlotTerms t = {{"S", "site"}, {"A", "age"},       {"B", "assoc"}, {"F", "fairshare"}, {"J", "jobsize"},
                              {"P", "partition"}, {"Q", "qos"}, {"n", "qosname"}, {"N", "nice"},    {"T", "tres"}};
  return t;
}
const ShareColumns& mf_columns() {
  static const ShareColumns c = {
      {"Account", "account"},         {"User", "user"},           {"RawShares", "raw_shares"},
      {"NormShares", "norm_shares"},   {"RawUsage", "raw_usage"},  {"NormUsage", "norm_usage"},
      {"EffectvUsage", "eff_usage"},   {"FairShare", "fairshare"}, {"LevelFS", "level_fs"},
      {"GrpTRESMins", "grp_tres_mins"}, {"TRESRunMins", "tres_run_mins"}};
  return c;
}
std::string mf_default_format(bool long_format, bool normalized, bool users, const Weights& w) {
  return default_sprio_format(long_format, normalized, users, w, mf_terms());
}
std::string mf_format_sshare(const ShareTable& t, const std::vector<ShareField>& fields, const SshareSlurmOptions& o) {
  return format_sshare_slurm(t, fields, o, mf_columns());
}

Weights mf_weights() {
  Weights w;
  w.known = true;
  w.cells = {{"age", "1000"},       {"assoc", "0"}, {"fairshare", "4000"},      {"jobsize", "100"},
             {"partition", "200"},  {"qos", "300"}, {"tres.cpu", "1000"},       {"tres.gres/gpu", "1000"}};
  return w;
}

std::string pf(const char* fmt, const std::string& v) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, v.c_str());
  return buf;
}

std::string slurm_sprio(const std::vector<SprioRow>& rows, const std::string& format, SprioOptions o = {},
                        const Weights& w = mf_weights()) {
  return format_sprio_slurm(rows, parse_sprio_format(format), o, w, mf_terms());
}

TEST(SlurmSprio, DefaultShortFormatDropsZeroWeightColumnsAndAddsUserOnlyWithU) {
  const Weights w = mf_weights();
  EXPECT_EQ(mf_default_format(false, false, false, w),
            "%.15i %9r %.10Y %.10S %.10A %.10F %.10J %.10P %.10Q %.20T");  // no %.10B: PriorityWeightAssoc=0
  EXPECT_EQ(mf_default_format(false, true, true, w), "%.15i %9r %.8u %10y %10a %10f %10j %10p %10q %20t");
  Weights none;
  none.cells = {{"age", "0"}, {"fairshare", "5"}};
  EXPECT_EQ(mf_default_format(false, false, false, none), "%.15i %9r %.10Y %.10S %.10F");
  // -l shows every column whatever the weights.
  EXPECT_EQ(mf_default_format(true, false, false, none),
            "%.15i %9r %.8u %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10Q %.11N %.20T");
}

TEST(SlurmSprio, WeightedValuesRoundHalvesToEvenLikePrintf) {
  // jobsize 12.5 and the cpu TRES 62.5 are exact halves: printf's %.0f gives
  // 12 and 62 (round half to even), not 13 and 63.
  const std::string out = slurm_sprio({sample_row()}, mf_default_format(false, false, false, mf_weights()));
  const auto l = lines(out);
  ASSERT_EQ(l.size(), 2u) << out;
  const std::string want_row = pf("%15s", "42") + " " + pf("%-9s", "batch") + " " + pf("%10s", "1851") + " " +
                               pf("%10s", "3") + " " + pf("%10s", "500") + " " + pf("%10s", "1001") + " " +
                               pf("%10s", "12") + " " + pf("%10s", "200") + " " + pf("%10s", "100") + " " +
                               pf("%20s", "cpu=62,gres/gpu=250");  // %.20T: right-justified (Slurm 22.05.8, live)
  EXPECT_EQ(l[1], want_row);
  const std::string want_header = pf("%15s", "JOBID") + " " + pf("%-9s", "PARTITION") + " " + pf("%10s", "PRIORITY") +
                                  " " + pf("%10s", "SITE") + " " + pf("%10s", "AGE") + " " + pf("%10s", "FAIRSHARE") +
                                  " " + pf("%10s", "JOBSIZE") + " " + pf("%10s", "PARTITION") + " " +
                                  pf("%10s", "QOS") + " " + pf("%20s", "TRES");
  EXPECT_EQ(l[0], want_header);
}

TEST(SlurmSprio, LongFormatHasSlurm2205sColumnsAndNice) {
  SprioOptions o;
  o.header = false;
  const std::string out = slurm_sprio({sample_row()}, mf_default_format(true, false, false, mf_weights()), o);
  const std::string want = pf("%15s", "42") + " " + pf("%-9s", "batch") + " " + pf("%8s", "alice") + " " +
                           pf("%10s", "1851") + " " + pf("%10s", "3") + " " + pf("%10s", "500") + " " +
                           pf("%10s", "0") + " " + pf("%10s", "1001") + " " + pf("%10s", "12") + " " +
                           pf("%10s", "200") + " " + pf("%10s", "100") + " " + pf("%11s", "10") + " " +
                           pf("%20s", "cpu=62,gres/gpu=250") + "\n";
  EXPECT_EQ(out, want);
}

TEST(SlurmSprio, NormalizedValuesAndThePriorityCutToItsWidth) {
  SprioOptions o;
  o.header = false;
  const std::string out = slurm_sprio({sample_row()}, "%.15i %10y %10a %10b %20t", o);
  char prio[64];
  std::snprintf(prio, sizeof prio, "%16.14f", 1851 / 4294967295.0);
  // %10b: PriorityWeightAssoc is 0, so 0/0 prints as sprio prints it, 0.0000000.
  // %20t: "cpu=0.06,gres/gpu=0.25" (%.2f) cut to 20 characters.
  const std::string want = pf("%15s", "42") + " " + std::string(prio).substr(0, 10) + " " + pf("%-10s", "0.5000000") +
                           " " + pf("%-10s", "0.0000000") + " " + std::string("cpu=0.06,gres/gpu=0.25").substr(0, 20) +
                           "\n";
  EXPECT_EQ(out, want);
}

TEST(SlurmSprio, FormatPrefixSuffixWidthsAndCuts) {
  SprioRow r = sample_row();
  r.job_id = 123456;
  SprioOptions o;
  o.header = false;
  EXPECT_EQ(slurm_sprio({r}, "id=%.3i|%2r|%u|%o|%n.", o), "id=123|ba|alice|physics|normal.\n");
  EXPECT_THROW(parse_sprio_format("%i %Z"), std::invalid_argument);
  EXPECT_THROW(parse_sprio_format("%.10"), std::invalid_argument);
}

TEST(SlurmSprio, WeightsRowOnlyWithW) {
  SprioOptions o;
  o.weights = true;
  const std::string out = slurm_sprio({sample_row()}, "%i|%r|%Y|%S|%A|%b|%N|%T", o);
  EXPECT_EQ(out, "JOBID|PARTITION|PRIORITY|SITE|AGE|ASSOC|NICE|TRES\nWeights|||1|1000|0||cpu=1000,gres/gpu=1000\n");
}

TEST(SlurmSprio, SortSpec) {
  std::vector<SprioRow> rows = {sample_row(), sample_row(), sample_row()};
  rows[0].job_id = 1, rows[0].f.priority = 10, rows[0].user = "b";
  rows[1].job_id = 2, rows[1].f.priority = 30, rows[1].user = "a";
  rows[2].job_id = 3, rows[2].f.priority = 20, rows[2].user = "b";
  sort_sprio_rows(&rows, "-Y", mf_terms());
  EXPECT_EQ(rows[0].job_id, 2u);
  EXPECT_EQ(rows[1].job_id, 3u);
  EXPECT_EQ(rows[2].job_id, 1u);
  sort_sprio_rows(&rows, "u,-i", mf_terms());
  EXPECT_EQ(rows[0].job_id, 2u);
  EXPECT_EQ(rows[1].job_id, 3u);
  EXPECT_EQ(rows[2].job_id, 1u);
  EXPECT_THROW(sort_sprio_rows(&rows, "x", mf_terms()), std::invalid_argument);
  EXPECT_THROW(sort_sprio_rows(&rows, "S", mf_terms()), std::invalid_argument);  // not one of sprio's sort keys
  // t and T sort alike, by the TRES contributions' sum.
  rows[2].f.terms[9].contribution = 5;  // job 1's TRES term (the others: 312.5)
  sort_sprio_rows(&rows, "t", mf_terms());
  EXPECT_EQ(rows[0].job_id, 1u);
  sort_sprio_rows(&rows, "-T", mf_terms());
  EXPECT_EQ(rows[2].job_id, 1u);
}

ShareTable mf_table() {
  ShareTable t;
  auto col = [&](const char* n, const char* l, int dec, uint32_t w, uint32_t f) {
    t.columns.push_back(ShareColumn{n, l, dec, w, f});
  };
  col("account", "Account", -1, 20, MFPRIO_COLF_TEXT | MFPRIO_COLF_INDENT | MFPRIO_COLF_LEFT);
  col("user", "User", -1, 10, MFPRIO_COLF_TEXT);
  col("raw_shares", "RawShares", -1, 10, 0);
  col("norm_shares", "NormShares", 6, 11, 0);
  col("raw_usage", "RawUsage", -1, 11, 0);
  col("norm_usage", "NormUsage", 6, 11, MFPRIO_COLF_LONG);
  col("eff_usage", "EffectvUsage", 6, 13, 0);
  col("fairshare", "FairShare", 6, 10, 0);
  col("level_fs", "LevelFS", 6, 10, MFPRIO_COLF_LONG);
  auto num = [](double v) { return ShareCell{v, false, ""}; };
  auto text = [](const char* s) { return ShareCell{0, true, s}; };
  ShareRow root;
  root.account = "root";
  root.cells = {text("root"), text(""), text(""), num(0), num(1234.9), text(""), num(1), text(""), text("")};
  ShareRow acct;
  acct.depth = 1;
  acct.parent = 0;
  acct.account = "a-very-long-account-name";
  acct.cells = {text("a-very-long-account-name"), text(""), num(10), num(1), num(1234.9), num(1), num(1),
                text(""), num(123456789.0)};
  ShareRow user;
  user.depth = 2;
  user.parent = 1;
  user.is_user = true;
  user.account = "a-very-long-account-name";
  user.user = "ann";
  user.cells = {text("a-very-long-account-name"), text("ann"), num(1), num(1), num(7.99), num(0.5), num(0.5),
                num(0.5), num(std::numeric_limits<double>::infinity())};
  t.rows = {root, acct, user};
  return t;
}

TEST(SlurmSshare, RawUsageTruncatesAndPrintFieldsPads) {
  const auto fields = parse_sshare_format(default_sshare_format(true, false, true));
  const std::string out = mf_format_sshare(mf_table(), fields, SshareSlurmOptions{});
  const auto l = lines(out);
  ASSERT_EQ(l.size(), 5u) << out;
  // print_fields: every field padded to its width and followed by a space; Account is left-justified (-20).
  EXPECT_EQ(l[0], pf("%-20s", "Account") + " " + pf("%10s", "User") + " " + pf("%10s", "RawShares") + " " +
                      pf("%11s", "NormShares") + " " + pf("%11s", "RawUsage") + " " + pf("%11s", "NormUsage") + " " +
                      pf("%13s", "EffectvUsage") + " " + pf("%10s", "FairShare") + " " + pf("%10s", "LevelFS") + " " +
                      pf("%30s", "GrpTRESMins") + " " + pf("%30s", "TRESRunMins") + " ");
  // The root: blank RawShares, NormUsage, FairShare, LevelFS; RawUsage 1234.9 truncated to 1234.
  EXPECT_EQ(l[2], pf("%-20s", "root") + " " + std::string(10, ' ') + " " + std::string(10, ' ') + " " +
                      pf("%11s", "0.000000") + " " + pf("%11s", "1234") + " " + std::string(11, ' ') + " " +
                      pf("%13s", "1.000000") + " " + std::string(10, ' ') + " " + std::string(10, ' ') + " " +
                      std::string(30, ' ') + " " + std::string(30, ' ') + " ");
  // A name longer than its column ends in '+'; a number too wide for %f goes to %e.
  char e[64];
  std::snprintf(e, sizeof e, "%10.4e", 123456789.0);
  EXPECT_EQ(l[3].substr(0, 21), " a-very-long-accoun+ ");
  EXPECT_NE(l[3].find(std::string(" ") + e + " "), std::string::npos) << l[3];
  // The user: RawUsage 7.99 -> 7; LevelFS inf prints as printf prints it.
  EXPECT_NE(l[4].find(pf("%11s", "7") + " "), std::string::npos) << l[4];
  EXPECT_NE(l[4].find(pf("%10s", "inf") + " "), std::string::npos) << l[4];
}

TEST(SlurmSshare, ParsableEndsWithABarOnlyWithLowerP) {
  const auto fields = parse_sshare_format("Account,User,RawUsage");
  SshareSlurmOptions o;
  o.parsable = true;
  o.no_ending = true;  // -P
  EXPECT_EQ(mf_format_sshare(mf_table(), fields, o),
            "Account|User|RawUsage\nroot||1234\n a-very-long-account-name||1234\n  a-very-long-account-name|ann|7\n");
  o.no_ending = false;  // -p
  o.header = false;
  EXPECT_EQ(lines(mf_format_sshare(mf_table(), fields, o)).at(2), "  a-very-long-account-name|ann|7|");
}

TEST(SlurmSshare, FieldNamesMatchByPrefixInSlurmsOrderWithWidths) {
  const auto f = parse_sshare_format("a,u,raw,rawu%15,Eff,Fair,lev,p,norms,normu,acc%-30");
  std::vector<std::string> names;
  for (const auto& x : f) names.push_back(x.name);
  EXPECT_EQ(names, (std::vector<std::string>{"Account", "User", "RawShares", "RawUsage", "EffectvUsage", "FairShare",
                                             "LevelFS", "Partition", "NormShares", "NormUsage", "Account"}));
  EXPECT_EQ(f[3].len, 15);
  EXPECT_EQ(f[0].len, -20);
  EXPECT_EQ(f[10].len, -30);
  EXPECT_THROW(parse_sshare_format("Account,Bogus"), std::invalid_argument);
  // Without Fair Tree Slurm's default has no LevelFS.
  EXPECT_EQ(default_sshare_format(true, false, false),
            "A,User,RawShares,NormShares,RawUsage,NormUsage,Eff,Fairshare,GrpTRESMins,TRESRunMins");
  EXPECT_EQ(default_sshare_format(false, true, true), "A,User,P,RawShares,NormShares,RawUsage,Eff,Fairshare");
  EXPECT_EQ(lines(sshare_helpformat()).at(0), pf("%-17s", "Account") + " " + pf("%-17s", "Cluster") + " " +
                                                  pf("%-17s", "EffectvUsage") + " " + pf("%-17s", "FairShare"));
}

// printf_fixed against the C library over values that test each branch:
// exact halves at every decimal count (odd / 2^k), their neighbours, random
// bit patterns, negative zero, tiny, huge and non-finite values.
TEST(PrintfFixed, ByteIdenticalToSnprintf) {
  std::vector<double> values = {0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -2.5, 0.125, 0.375, 1e-7, 5e-7, 4.9999999e-7,
                                0.0000005, 0.9999995, 0.99999949999, 999999999.5, 999999999.9999999,
                                999999999.99999988, 1e9, -1e9, 1e9 - 1, 1e10, 1e300, -1e300, 1e-300, 5e-324,
                                std::numeric_limits<double>::min(), std::numeric_limits<double>::max(),
                                std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::quiet_NaN()};
  std::mt19937_64 rng(12345);
  for (int i = 0; i < 50000; ++i) {
    const uint64_t r = rng();
    switch (i % 5) {
      case 0: {  // odd / 2^k: an exact half at k - 1 decimals, and its neighbours
        const double v = std::ldexp(static_cast<double>((r >> 12) | 1), -static_cast<int>(1 + r % 40));
        values.push_back(v);
        values.push_back(std::nextafter(v, 0.0));
        values.push_back(std::nextafter(v, 1e300));
        break;
      }
      case 1: {  // any bit pattern
        double v;
        std::memcpy(&v, &r, sizeof v);
        values.push_back(v);
        break;
      }
      case 2: values.push_back(static_cast<double>(r >> 11) / 9007199254740992.0); break;  // [0, 1)
      case 3: values.push_back(-static_cast<double>(r % 2000000000) / 2.0); break;  // integers and halves
      default: values.push_back(std::ldexp(static_cast<double>(r >> 11), static_cast<int>(r % 64) - 83)); break;
    }
  }
  size_t checked = 0;
  for (const double v : values)
    for (const int d : {0, 1, 2, 3, 5, 6, 7, 9, 10, 14}) {
      char want[512], got[512];
      std::snprintf(want, sizeof want, "%.*f", d, v);
      const size_t n = printf_fixed(got, sizeof got, v, d);
      ASSERT_STREQ(got, want) << "v=" << std::hexfloat << v << " d=" << d;
      ASSERT_EQ(n, std::strlen(want));
      ++checked;
    }
  EXPECT_GT(checked, 250000u);
  // fixed() keeps its own spelling of the non-finite values.
  EXPECT_EQ(fixed(0.5, 0), "0");
  EXPECT_EQ(fixed(-std::numeric_limits<double>::quiet_NaN(), 6), "nan");
}

// The plugin's table as the ABI hands it over, built from a ShareTable
// (the arrays live as long as the object).
struct RawShareTable {
  std::vector<mfprio_share_column_t> cols;
  std::vector<mfprio_share_row_t> rows;
  std::vector<std::vector<mfprio_share_cell_t>> cells;
  mfprio_share_table_t t{};
  explicit RawShareTable(const ShareTable& in) {
    for (const ShareColumn& c : in.columns) {
      mfprio_share_column_t col{};
      std::snprintf(col.name, sizeof col.name, "%s", c.name.c_str());
      std::snprintf(col.label, sizeof col.label, "%s", c.label.c_str());
      col.decimals = c.decimals;
      col.width = c.width;
      col.flags = c.flags;
      cols.push_back(col);
    }
    for (const ShareRow& r : in.rows) {
      cells.emplace_back();
      for (const ShareCell& c : r.cells) cells.back().push_back({c.value, c.has_text ? c.text.c_str() : nullptr});
      cells.back().resize(cols.size(), mfprio_share_cell_t{0, nullptr});
    }
    for (size_t i = 0; i < in.rows.size(); ++i) {
      const ShareRow& r = in.rows[i];
      mfprio_share_row_t row{};
      row.parent = r.parent;
      row.depth = r.depth;
      row.is_user = r.is_user;
      row.account = r.account.c_str();
      row.user = r.is_user ? r.user.c_str() : nullptr;
      row.partition = r.partition.empty() ? nullptr : r.partition.c_str();
      row.cells = cells[i].data();
      rows.push_back(row);
    }
    t.struct_size = sizeof t;
    t.column_count = static_cast<uint32_t>(cols.size());
    t.row_count = rows.size();
    t.columns = cols.data();
    t.rows = rows.data();
  }
};

std::string write_to_string(const mfprio_share_table_t& t, const std::vector<ShareField>& fields,
                            const SshareSlurmOptions& o, const std::function<bool(const mfprio_share_row_t&)>& keep) {
  char* buf = nullptr;
  size_t size = 0;
  std::FILE* f = open_memstream(&buf, &size);
  // Closed and freed on every path: a malformed table throws out of the write.
  struct Closer {
    std::FILE* f;
    char** buf;
    ~Closer() {
      if (f) std::fclose(f);
      std::free(*buf);
    }
  } closer{f, &buf};
  write_sshare_slurm(t, fields, o, keep, f, mf_columns());
  std::fclose(f);
  closer.f = nullptr;
  return std::string(buf, size);
}

TEST(SlurmSshare, WritingFromThePluginsTableEqualsFormattingItsCopy) {
  ShareTable table = mf_table();
  table.rows[2].partition = "gpu";
  // Enough rows to cross the 64 KiB pieces, with values of every shape.
  std::mt19937_64 rng(7);
  for (int i = 0; i < 3000; ++i) {
    ShareRow r = table.rows[i % 3];
    r.depth = static_cast<uint32_t>(i % 7);
    r.is_user = i % 2;
    r.user = "u" + std::to_string(i);
    r.partition = i % 3 ? "" : "batch";
    if (r.is_user) r.cells[1] = ShareCell{0, true, r.user};
    for (size_t c = 2; c < r.cells.size(); ++c)
      if (!r.cells[c].has_text) r.cells[c].value = static_cast<double>(rng() % 100000000) / double(1 + rng() % 1000);
    table.rows.push_back(r);
  }
  const RawShareTable raw(table);
  for (const char* list : {"A,User,RawShares,NormShares,RawUsage,Eff,Fairshare",
                           "A,User,P,RawShares,NormShares,RawUsage,NormUsage,Eff,Fairshare,LevelFS,GrpTRESMins,"
                           "TRESRunMins",
                           "ID,Cluster,User%3,Account%-8,Lev%4,Fair%14,RawU%-5"}) {
    const auto fields = parse_sshare_format(list);
    for (int mode = 0; mode < 4; ++mode) {
      SshareSlurmOptions o;
      o.parsable = mode >= 2;
      o.no_ending = mode == 3;
      o.header = mode != 1;
      EXPECT_EQ(write_to_string(raw.t, fields, o, nullptr), mf_format_sshare(share_table_from(raw.t), fields, o))
          << list << " mode " << mode;
      // Only users: the rows kept in order.
      ShareTable users = share_table_from(raw.t);
      users.rows.erase(std::remove_if(users.rows.begin(), users.rows.end(), [](const ShareRow& r) { return !r.is_user; }),
                       users.rows.end());
      EXPECT_EQ(write_to_string(raw.t, fields, o, [](const mfprio_share_row_t& r) { return r.is_user != 0; }),
                mf_format_sshare(users, fields, o));
    }
  }
  // A malformed table is refused as share_table_from refuses it.
  RawShareTable bad(table);
  bad.rows[5].cells = nullptr;
  EXPECT_THROW(write_to_string(bad.t, parse_sshare_format("A"), SshareSlurmOptions{}, nullptr), std::runtime_error);
}

TEST(GenericSshare, ParsableNoEndingDropsTheLastBar) {
  SshareOptions o;
  o.parsable = true;
  o.no_ending = true;
  const std::string out = format_sshare(mf_table(), o);
  EXPECT_EQ(lines(out).at(0), "Account|User|RawShares|NormShares|RawUsage|EffectvUsage|FairShare");
}

}  // namespace
