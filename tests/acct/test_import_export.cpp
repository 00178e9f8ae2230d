// test_import_export.cpp - JSON import/export: round trips at scale, merge
// semantics, and bad input that names the record and changes nothing.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>

#include "admin.hpp"
#include "import_export.hpp"
#include "test_util.hpp"

namespace mfprio::acct {
namespace {

using test::TempDir;

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// 220 accounts (20 under root, 10 under each), 10,000 users with fractional
// usage, some with FairShare=parent, per-TRES usage, a second association.
std::string big_tree_json(std::map<std::string, double>* usage) {
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> u(0, 1e9);
  std::string s = "{\"accounts\": [";
  std::vector<std::string> leaves;
  // Children first, to exercise resolving parents after reading everything.
  for (int a = 0; a < 20; ++a)
    for (int b = 0; b < 10; ++b) {
      std::string name = "acct" + std::to_string(a) + "_" + std::to_string(b);
      leaves.push_back(name);
      s += "{\"name\": \"" + name + "\", \"parent\": \"acct" + std::to_string(a) +
           "\", \"shares\": " + (b == 3 ? std::string("\"parent\"") : std::to_string(b + 1)) + "},";
    }
  for (int a = 0; a < 20; ++a)
    s += "{\"name\": \"acct" + std::to_string(a) + "\", \"shares\": " + std::to_string(a * 7 + 1) +
         ", \"priority\": " + std::to_string(a) + ", \"description\": \"group " +
         std::to_string(a) + "\"},";
  s.pop_back();
  s += "], \"users\": [";
  char buf[64];
  for (int i = 0; i < 10000; ++i) {
    std::string name = "user" + std::to_string(i);
    std::string acct = i % 500 == 0 ? "root" : leaves[static_cast<size_t>(i) % leaves.size()];
    double use = u(rng) / 3.0;
    (*usage)[name + "/" + acct] = use;
    std::snprintf(buf, sizeof buf, "%.17g", use);
    s += "{\"name\": \"" + name + "\", \"account\": \"" + acct + "\", \"shares\": " +
         std::to_string(i % 5 + 1) + ", \"raw_usage\": " + buf +
         (i % 7 == 0 ? ", \"tres_usage\": {\"cpu\": 1.25, \"gres/gpu\": 0.1}" : "") + "},";
    if (i % 1000 == 1) {
      s += "{\"name\": \"" + name + "\", \"account\": \"acct0_0\", \"partition\": \"gpu\","
           " \"shares\": \"parent\", \"default\": true, \"raw_usage\": 0.3},";
      (*usage)[name + "/acct0_0"] = 0.3;
    }
  }
  s.pop_back();
  s += "], \"qos\": [{\"name\": \"high\", \"priority\": 100, \"usage_factor\": 2.5}],"
       " \"partitions\": [{\"name\": \"batch\", \"priority_job_factor\": 1,"
       " \"tres_billing_weights\": \"CPU=1.0,Mem=0.25G\", \"tres\": \"cpu=240,mem=491520\","
       " \"default\": true}, {\"name\": \"gpu\", \"priority_job_factor\": 20,"
       " \"tres_billing_weights\": \"\"}]}";
  return s;
}

TEST(Import, BigTreeRoundTripsThroughExportExactly) {
  TempDir dir;
  std::map<std::string, double> usage;
  write_file(dir.file("in.json"), big_tree_json(&usage));
  auto s1 = Store::open(store_location(dir, "one.db"));
  auto t0 = std::chrono::steady_clock::now();
  ImportStats st = import_json_file(*s1, dir.file("in.json"));
  auto t1 = std::chrono::steady_clock::now();
  StoreData d = s1->load();
  auto t2 = std::chrono::steady_clock::now();
  std::printf("import 10^4 users: %.1f ms, load: %.1f ms\n",
              std::chrono::duration<double, std::milli>(t1 - t0).count(),
              std::chrono::duration<double, std::milli>(t2 - t1).count());
  EXPECT_EQ(220u, st.accounts);
  EXPECT_EQ(10000u, st.users);
  ASSERT_EQ(221u, d.accounts.size());
  ASSERT_EQ(10010u, d.assocs.size());
  for (const auto& a : d.assocs) {
    auto it = usage.find(a.user + "/" + a.account);
    ASSERT_NE(it, usage.end()) << a.user;
    EXPECT_EQ(it->second, a.raw_usage) << a.user;  // bit-exact
  }
  const UserAssocRec* two = test::find_assoc(d, "user1", "acct0_0");
  ASSERT_NE(nullptr, two);
  EXPECT_TRUE(two->shares_parent);
  EXPECT_TRUE(two->is_default);
  EXPECT_EQ("gpu", two->partition);
  EXPECT_FALSE(test::find_assoc(d, "user1", "acct0_1")->is_default);

  std::string exported = export_json(d);
  write_file(dir.file("out.json"), exported);
  auto s2 = Store::open(store_location(dir, "two.db"));
  import_json_file(*s2, dir.file("out.json"));
  EXPECT_EQ(exported, export_json(s2->load()));
}

TEST(Import, SlurmDocTreeWithParentSharesAndUsersUnderRoot) {
  TempDir dir;
  write_file(dir.file("in.json"), R"({"accounts": [
      {"name": "B", "parent": "A", "shares": 30}, {"name": "A", "shares": 40},
      {"name": "T", "parent": "A", "shares": "parent"}],
    "users": [{"name": "User1", "account": "B", "raw_usage": 20},
              {"name": "ops", "account": "root", "shares": 2, "raw_usage": 0.5,
               "priority": 9, "admin": true},
              {"name": "boss"}]})");
  auto s = Store::open(store_location(dir, "a.db"));
  import_json_file(*s, dir.file("in.json"));
  StoreData d = s->load();
  ASSERT_EQ(4u, d.accounts.size());
  EXPECT_EQ("A", d.accounts[1].name);
  EXPECT_TRUE(d.accounts[3].shares_parent);  // T
  const UserAssocRec* ops = test::find_assoc(d, "ops", "root");
  ASSERT_NE(nullptr, ops);
  EXPECT_EQ(9u, ops->priority);
  EXPECT_TRUE(ops->is_default);
  ASSERT_EQ(3u, d.users.size());  // by name, byte order: User1, boss, ops
  EXPECT_EQ("boss", d.users[1].name);
  EXPECT_FALSE(d.users[1].admin);
  EXPECT_EQ("", d.users[1].default_account);
  EXPECT_TRUE(d.users[2].admin);  // ops
}

TEST(Import, ListedRecordsAreMergedAndOmittedFieldsKept) {
  TempDir dir;
  auto s = Store::open(store_location(dir, "a.db"));
  write_file(dir.file("1.json"), R"({"accounts": [{"name": "A", "shares": 4, "description": "d"}],
    "users": [{"name": "u", "account": "A", "raw_usage": 7.5, "priority": 3}]})");
  import_json_file(*s, dir.file("1.json"));
  write_file(dir.file("2.json"), R"({"accounts": [{"name": "A", "shares": 9}],
    "users": [{"name": "u", "account": "A", "shares": 2}, {"name": "v", "account": "A"}]})");
  import_json_file(*s, dir.file("2.json"));
  StoreData d = s->load();
  EXPECT_EQ(9u, d.accounts[1].shares);
  EXPECT_EQ("d", d.accounts[1].description);
  const UserAssocRec* u = test::find_assoc(d, "u", "A");
  EXPECT_EQ(2u, u->shares);
  EXPECT_EQ(3u, u->priority);
  EXPECT_EQ(7.5, u->raw_usage);
  EXPECT_EQ(0.0, test::find_assoc(d, "v", "A")->raw_usage);
}

struct BadCase {
  const char* name;
  const char* json;
  const char* message;  // expected substring of the one-line error
};

class BadImport : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadImport, NamesTheRecordAndLeavesTheStoreAsItWas) {
  TempDir dir;
  auto s = Store::open(store_location(dir, "a.db"));
  write_file(dir.file("good.json"), R"({"accounts": [{"name": "A", "shares": 4}],
    "users": [{"name": "u", "account": "A", "raw_usage": 7.5}],
    "qos": [{"name": "q", "priority": 1, "usage_factor": 1}]})");
  import_json_file(*s, dir.file("good.json"));
  std::string before = export_json(s->load());
  write_file(dir.file("bad.json"), GetParam().json);
  try {
    import_json_file(*s, dir.file("bad.json"));
    ADD_FAILURE() << "bad import accepted";
  } catch (const AdminError& e) {
    std::string msg = e.what();
    EXPECT_NE(std::string::npos, msg.find(GetParam().message)) << msg;
    EXPECT_EQ(0u, msg.find("import " + dir.file("bad.json"))) << msg;
    EXPECT_EQ(std::string::npos, msg.find('\n')) << msg;
  }
  EXPECT_EQ(before, export_json(s->load()));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadImport,
    ::testing::Values(
        BadCase{"UnknownAccount",
                R"({"accounts": [{"name": "N", "shares": 1}], "users": [
                  {"name": "a", "account": "A", "raw_usage": 99},
                  {"name": "b", "account": "A"}, {"name": "c", "account": "A"},
                  {"name": "bob", "account": "zz"}]})",
                R"(users[3] (name "bob"): unknown account "zz")"},
        BadCase{"UnknownParent", R"({"accounts": [{"name": "X", "parent": "nope"}]})",
                R"(accounts[0] (name "X"): unknown parent "nope")"},
        BadCase{"Cycle",
                R"({"accounts": [{"name": "X", "parent": "Y"}, {"name": "Y", "parent": "X"}]})",
                R"(accounts[0] (name "X"): parent cycle X -> Y -> X)"},
        BadCase{"CycleThroughStoredAccount", R"({"accounts": [{"name": "A", "parent": "Z"},
                  {"name": "Z", "parent": "A"}]})", "parent cycle"},
        BadCase{"DuplicateAccount",
                R"({"accounts": [{"name": "X"}, {"name": "X", "shares": 2}]})",
                R"(accounts[1] (name "X"): duplicate of accounts[0])"},
        BadCase{"DuplicateAssoc", R"({"users": [{"name": "u", "account": "A", "raw_usage": 1},
                  {"name": "u", "account": "A"}]})",
                R"(users[1] (name "u"): duplicate of users[0])"},
        BadCase{"NegativeShares", R"({"accounts": [{"name": "X", "shares": -3}]})",
                R"(accounts[0] (name "X"): negative shares)"},
        BadCase{"SharesWrongType", R"({"accounts": [{"name": "X", "shares": true}]})",
                R"("shares" must be an integer)"},
        BadCase{"SharesBadString", R"({"accounts": [{"name": "X", "shares": "lots"}]})",
                R"("shares" must be a number or "parent")"},
        BadCase{"UsageWrongType", R"({"users": [{"name": "u", "account": "A", "raw_usage": "7"}]})",
                R"(users[0] (name "u"): "raw_usage" must be a number)"},
        BadCase{"NegativeUsage", R"({"users": [{"name": "u", "account": "A", "raw_usage": -1}]})",
                R"("raw_usage" must be >= 0)"},
        BadCase{"UnknownKey", R"({"accounts": [{"name": "X", "sharez": 1}]})",
                R"(unknown key "sharez")"},
        BadCase{"RootListed", R"({"accounts": [{"name": "root"}]})", "implicit"},
        BadCase{"BadName", R"({"accounts": [{"name": "a b"}]})", "contains a space"},
        BadCase{"MissingName", R"({"qos": [{"priority": 1}]})", R"(qos[0]: missing "name")"},
        BadCase{"NotAnArray", R"({"users": {"name": "u"}})", R"("users" must be an array)"},
        BadCase{"BadJobFactor", R"({"partitions": [{"name": "p", "priority_job_factor": 70000}]})",
                "outside 0..65533"},
        BadCase{"BadBillingWeights",
                R"({"partitions": [{"name": "p", "tres_billing_weights": "CPU=x"}]})",
                "bad weight 'x' for TRES 'cpu'"},
        // What the store accepts, the plugin loads: the same TRES parser.
        BadCase{"NegativeBillingWeight",
                R"({"partitions": [{"name": "p", "tres_billing_weights": "CPU=-1"}]})",
                "negative weight for TRES 'cpu'"},
        BadCase{"BillingWeightTwice",
                R"({"partitions": [{"name": "p", "tres_billing_weights": "CPU=1,cpu=2"}]})",
                "TRES 'cpu' given twice"},
        BadCase{"BadTresName",
                R"({"partitions": [{"name": "p", "tres_billing_weights": "gres/g pu=1"}]})",
                "bad TRES name"},
        BadCase{"TwoDefaults", R"({"users": [{"name": "u", "account": "A", "default": true},
                  {"name": "u", "account": "root", "default": true}]})",
                "second default account"},
        BadCase{"MalformedJson", "{\"accounts\": [\n  {\"name\": \"X\",, }\n]}", ":2:"},
        BadCase{"DuplicateKey", R"({"accounts": [{"name": "X", "name": "Y"}]})", "duplicate"},
        // Flux queues (schema v5).
        BadCase{"UnknownQueue", R"({"users": [{"name": "u", "account": "A", "queues": ["batch"]}]})",
                R"(users[0] (name "u"): unknown queue "batch")"},
        BadCase{"QueueTwice", R"({"queues": [{"name": "batch"}],
                  "users": [{"name": "u", "account": "A", "queues": ["batch", "batch"]}]})",
                R"(queue "batch" listed twice)"},
        BadCase{"QueuesNotNames", R"({"users": [{"name": "u", "account": "A", "queues": "batch"}]})",
                R"("queues" must be an array of queue names)"},
        BadCase{"QueuePriorityPastInt32", R"({"queues": [{"name": "q", "priority": 2147483648}]})",
                R"(queues[0] (name "q"): "priority" 2147483648 is outside -2147483648..2147483647)"},
        BadCase{"DuplicateQueue", R"({"queues": [{"name": "q"}, {"name": "q"}]})",
                R"(queues[1] (name "q"): duplicate of queues[0])"},
        BadCase{"NegativeUsageTime", R"({"users": [{"name": "u", "account": "A", "usage_time": -1}]})",
                R"("usage_time" -1 is outside)"},
        // One name rule (UTF-8, no control characters), descriptions
        // that keep -P rows whole, usage that cannot sum past a double.
        BadCase{"C1ControlInName", R"({"accounts": [{"name": "a\u0085b"}]})",
                R"(name "a\xc2\x85b" contains a control character)"},
        BadCase{"DelInName", R"({"users": [{"name": "u\u007f", "account": "A"}]})", "control character"},
        BadCase{"LineSeparatorInName", R"({"qos": [{"name": "q\u2028"}]})", "control character"},
        BadCase{"NewlineInDescription", R"({"accounts": [{"name": "X", "description": "a\nb"}]})",
                R"(accounts[0] (name "X"): description contains a control character)"},
        BadCase{"PipeInDescription", R"({"accounts": [{"name": "X", "description": "a|b"}]})",
                "description contains '|'"},
        BadCase{"UsageSumOverflows", R"({"users": [{"name": "v", "account": "A", "raw_usage": 1.5e308},
                  {"name": "w", "account": "A", "raw_usage": 1.5e308}]})",
                R"(users[1] (name "w"): "raw_usage" makes the total usage overflow a double)"},
        BadCase{"TresUsageSumOverflows", R"({"users": [{"name": "v", "account": "A", "tres_usage": {"cpu": 1e308}},
                  {"name": "w", "account": "A", "tres_usage": {"cpu": 1e308}}]})",
                R"(users[1] (name "w"): tres_usage "cpu" makes the total usage overflow a double)"}),
    [](const ::testing::TestParamInfo<BadCase>& i) { return std::string(i.param.name); });

TEST(NameProblem, AcceptsUtf8AndRefusesMalformedSequences) {
  EXPECT_EQ("", name_problem("J\xc3\xbcrgen"));       // Jürgen
  EXPECT_EQ("", name_problem("\xe7\xa0\x94\xe7\xa9\xb6"));  // 研究
  EXPECT_EQ("", name_problem("\xf0\x9f\x98\x80"));     // U+1F600
  for (const char* bad : {"\xc0\x80", "a\x80", "\xe2\x82", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xff"})
    EXPECT_NE(std::string::npos, name_problem(bad).find("is not valid UTF-8")) << bad;
  const std::string p = name_problem(std::string("a\nb\x1b[2J", 7));
  EXPECT_EQ(p, "name \"a\\x0ab\\x1b[2J\" contains a control character");
  EXPECT_LT(name_problem(std::string(100000, '\x01')).size(), 400u);  // bounded message
}

TEST(NameProblem, RefusesInvisibleFormatCharacters) {
  EXPECT_EQ(name_problem("\xEF\xBB\xBF" "alice"),
            "name \"\\xef\\xbb\\xbfalice\" contains the invisible format character U+FEFF (byte 1)");
  EXPECT_NE(std::string::npos, name_problem("al\xE2\x80\x8Bice").find("U+200B (byte 3)"));
  EXPECT_NE(std::string::npos, name_problem("a\xC2\xAD" "b").find("U+00AD"));     // soft hyphen
  EXPECT_NE(std::string::npos, name_problem("a\xE2\x81\xA0").find("U+2060"));    // word joiner
  EXPECT_NE(std::string::npos, name_problem("a\xF3\xA0\x80\x81").find("U+E0001"));  // language tag
  EXPECT_EQ("", name_problem("a\xE2\x80\x90" "b"));  // U+2010 HYPHEN is visible
}

TEST(Import, MissingFileIsOneClearError) {
  TempDir dir;
  auto s = Store::open(store_location(dir, "a.db"));
  try {
    import_json_file(*s, dir.file("missing.json"));
    FAIL();
  } catch (const AdminError& e) {
    EXPECT_NE(std::string::npos, std::string(e.what()).find("cannot read")) << e.what();
  }
}

TEST(Import, AFileIsUnderTheImportBoundAndLosesItsBom) {
  TempDir dir;
  auto s = Store::open(store_location(dir, "a.db"));
  // An editor's BOM before the JSON: jansson refused the whole file.
  write_file(dir.file("bom.json"), "\xEF\xBB\xBF" R"({"accounts": [{"name": "A", "shares": 1}]})");
  EXPECT_EQ(1u, import_json_file(*s, dir.file("bom.json")).accounts);
  // A sparse 300 MiB file: refused from its size, naming it and the bound.
  const std::string big = dir.file("big.json");
  write_file(big, "");
  ASSERT_EQ(0, ::truncate(big.c_str(), 300ll << 20));
  try {
    import_json_file(*s, big);
    FAIL();
  } catch (const AdminError& e) {
    EXPECT_EQ(std::string(e.what()), "import: " + big + ": larger than 256 MiB (the bound for an input file)");
  }
}

TEST(ChargesJsonl, ReadsLinesAndNamesTheBadLine) {
  TempDir dir;
  write_file(dir.file("c.jsonl"),
             "{\"job\": 1, \"user\": \"u\", \"start\": 0, \"end\": 10, \"cpus\": 4}\n\n"
             "{\"job\": 2, \"user\": \"u\", \"start\": 0, \"end\": 10, \"rate\": 1.5,"
             " \"ended\": false}\n");
  auto v = read_charges_jsonl(dir.file("c.jsonl"));
  ASSERT_EQ(2u, v.size());
  EXPECT_EQ(4.0, *v[0].cpus);
  EXPECT_TRUE(v[0].ended);
  EXPECT_FALSE(v[1].ended);
  write_file(dir.file("d.jsonl"), "{\"job\": 1, \"user\": \"u\", \"start\": 0, \"end\": 10}\n"
                                  "{\"job\": 2, \"user\": \"u\", \"start\": 0}\n");
  try {
    read_charges_jsonl(dir.file("d.jsonl"));
    FAIL();
  } catch (const AdminError& e) {
    EXPECT_NE(std::string::npos, std::string(e.what()).find("d.jsonl:2")) << e.what();
  }
}

}  // namespace
}  // namespace mfprio::acct

namespace mfprio::acct {
namespace {

// Schema v5: Flux queues, the queues an association may use, usage_time.
TEST(ImportQueues, QueuesPermissionsAndUsageTimeRoundTripThroughExport) {
  TempDir dir;
  write_file(dir.file("in.json"), R"({"accounts": [{"name": "A", "shares": 3, "priority": 7}],
    "queues": [{"name": "debug", "priority": -5}, {"name": "batch", "priority": 2}],
    "users": [{"name": "u", "account": "A", "queues": ["debug", "batch"], "raw_usage": 12.5,
               "usage_time": 1700000000},
              {"name": "v", "account": "A", "raw_usage": 0}]})");
  auto s1 = Store::open(store_location(dir, "one.db"));
  EXPECT_GE(s1->schema_version(), 5);  // v5 holds the queues
  ImportStats st = import_json_file(*s1, dir.file("in.json"));
  EXPECT_EQ(2u, st.queues);
  StoreData d = s1->load();
  ASSERT_EQ(2u, d.queues.size());
  EXPECT_EQ("batch", d.queues[0].name);  // by name
  EXPECT_EQ(-5, d.queues[1].priority);
  const UserAssocRec* u = test::find_assoc(d, "u", "A");
  ASSERT_NE(nullptr, u);
  EXPECT_EQ((std::vector<std::string>{"batch", "debug"}), u->queues);
  EXPECT_EQ(1700000000, u->usage_time);
  EXPECT_EQ(0, test::find_assoc(d, "v", "A")->usage_time);  // no usage: no time
  const std::string exported = export_json(d);
  EXPECT_NE(std::string::npos, exported.find(R"("queues":["batch","debug"])")) << exported;
  EXPECT_NE(std::string::npos, exported.find(R"({"name":"debug","priority":-5})")) << exported;
  write_file(dir.file("out.json"), exported);
  auto s2 = Store::open(store_location(dir, "two.db"));
  import_json_file(*s2, dir.file("out.json"));
  EXPECT_EQ(exported, export_json(s2->load()));

  // A record that omits "queues" keeps them; an empty list clears them.
  write_file(dir.file("keep.json"), R"({"users": [{"name": "u", "account": "A", "shares": 2}]})");
  import_json_file(*s1, dir.file("keep.json"));
  EXPECT_EQ(2u, test::find_assoc(s1->load(), "u", "A")->queues.size());
  write_file(dir.file("clear.json"), R"({"users": [{"name": "u", "account": "A", "queues": []}]})");
  import_json_file(*s1, dir.file("clear.json"));
  EXPECT_TRUE(test::find_assoc(s1->load(), "u", "A")->queues.empty());
}

TEST(ImportQueues, UsageWithoutATimeIsStampedWithTheImportTime) {
  TempDir dir;
  write_file(dir.file("in.json"), R"({"users": [{"name": "u", "account": "root", "raw_usage": 3}]})");
  auto s = Store::open(store_location(dir, "a.db"));
  const int64_t before = static_cast<int64_t>(time(nullptr));
  import_json_file(*s, dir.file("in.json"));
  const int64_t t = test::find_assoc(s->load(), "u", "root")->usage_time;
  EXPECT_GE(t, before);
  EXPECT_LE(t, static_cast<int64_t>(time(nullptr)) + 1);
}

TEST(StoreQueues, DeletingAQueueRemovesItsPermissionsAndAssocDeleteCascades) {
  TempDir dir;
  auto s = Store::open(store_location(dir, "a.db"));
  AdminChanges ch;
  ch.queues = {QueueRec{"batch", 1}, QueueRec{"debug", 2}};
  AssocWrite w;
  w.rec.user = "u";
  w.rec.account = "root";
  w.rec.queues = {"batch", "debug"};
  w.set_queues = true;
  ch.assocs.push_back(w);
  s->apply_admin(ch);
  EXPECT_EQ(2u, test::find_assoc(s->load(), "u", "root")->queues.size());
  AdminChanges del;
  del.delete_queues = {"debug"};
  s->apply_admin(del);
  StoreData d = s->load();
  EXPECT_EQ((std::vector<std::string>{"batch"}), test::find_assoc(d, "u", "root")->queues);
  ASSERT_EQ(1u, d.queues.size());
  // The store refuses a permission for a queue it does not have (the backstop).
  AdminChanges bad;
  w.rec.queues = {"nosuch"};
  bad.assocs.push_back(w);
  EXPECT_THROW(s->apply_admin(bad), StoreError);
  EXPECT_EQ((std::vector<std::string>{"batch"}), test::find_assoc(s->load(), "u", "root")->queues);
  AdminChanges gone;
  gone.delete_users = {"u"};
  s->apply_admin(gone);
  EXPECT_TRUE(s->load().assocs.empty());
}

}  // namespace
}  // namespace mfprio::acct

// Grid Engine: functional shares / override tickets per user, project and
// department (table ticket_objects), per-user cpu/mem/io usage.
namespace mfprio::acct {
namespace {

TEST(ImportGridEngine, TicketObjectsAndUsageRoundTripThroughExport) {
  TempDir dir;
  write_file(dir.file("in.json"), R"({
    "accounts": [{"name": "phys", "shares": 75}],
    "users": [
      {"name": "alice", "account": "phys", "shares": 10, "fshare": 100, "oticket": 5,
       "usage": {"cpu": 3600.5, "mem": 12, "io": 0.25}},
      {"name": "bob", "fshare": 20},
      {"name": "carol", "raw_usage": 42}
    ],
    "projects": [{"name": "phys", "fshare": 300, "oticket": 0}],
    "departments": [{"name": "defaultdepartment", "fshare": 1, "oticket": 2}]
  })");
  auto s1 = Store::open(store_location(dir, "one.db"));
  EXPECT_GE(s1->schema_version(), 6);  // v6 holds the ticket objects
  import_json_file(*s1, dir.file("in.json"));
  StoreData d = s1->load();
  ASSERT_EQ(4u, d.ticket_objects.size());
  std::map<std::string, TicketObjectRec> t;
  for (const auto& r : d.ticket_objects) t[r.kind + "/" + r.name] = r;
  EXPECT_EQ(100u, t["user/alice"].fshare);
  EXPECT_EQ(5u, t["user/alice"].oticket);
  EXPECT_EQ(20u, t["user/bob"].fshare);
  EXPECT_EQ(300u, t["project/phys"].fshare);
  EXPECT_EQ(2u, t["department/defaultdepartment"].oticket);
  // bob and carol exist as users in no account.
  std::set<std::string> users;
  for (const auto& u : d.users) users.insert(u.name);
  EXPECT_TRUE(users.count("bob") && users.count("carol"));
  std::map<std::string, double> usage;
  for (const auto& w : s1->load_windows("gridengine")) usage[w.kind + "/" + w.name] = w.usage;
  EXPECT_EQ(3600.5, usage["cpu/alice"]);
  EXPECT_EQ(12.0, usage["mem/alice"]);
  EXPECT_EQ(0.25, usage["io/alice"]);
  EXPECT_EQ(42.0, usage["cpu/carol"]);  // raw_usage alone is cpu

  const std::string exported = export_json(d);
  EXPECT_NE(exported.find("\"projects\""), std::string::npos);
  write_file(dir.file("out.json"), exported);
  auto s2 = Store::open(store_location(dir, "two.db"));
  import_json_file(*s2, dir.file("out.json"));
  EXPECT_EQ(exported, export_json(s2->load()));
}

TEST(ImportGridEngine, BadTicketFieldsAreRefusedWithTheRecord) {
  TempDir dir;
  auto s = Store::open(store_location(dir, "a.db"));
  const StoreData d = s->load();
  auto err = [&](const std::string& text) {
    try {
      plan_import(d, text, "f.json");
    } catch (const AdminError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(err(R"({"projects": [{"name": "p", "fshare": -1}]})").find("projects[0]"), std::string::npos);
  EXPECT_NE(err(R"({"departments": [{"name": "d", "bogus": 1}]})").find("bogus"), std::string::npos);
  EXPECT_NE(err(R"({"users": [{"name": "u", "usage": {"gpu": 1}}]})").find("gpu"), std::string::npos);
  EXPECT_NE(err(R"({"users": [{"name": "u", "usage": {"cpu": 1}}, {"name": "u", "usage": {"cpu": 2}}]})")
                .find("second \"usage\""),
            std::string::npos);
}

TEST(ImportGridEngine, TicketObjectsTableRejectsBadKinds) {
  TempDir dir;
  auto s = Store::open(store_location(dir, "a.db"));
  AdminChanges ch;
  ch.ticket_objects = {{"queue", "q", 1, 1}};
  EXPECT_THROW(s->apply_admin(ch), StoreError);
  ch.ticket_objects = {{"user", "u", 1, 1}};
  s->apply_admin(ch);
  ch.ticket_objects.clear();
  ch.delete_ticket_objects = {{"user", "u"}};
  s->apply_admin(ch);
  EXPECT_TRUE(s->load().ticket_objects.empty());
}

}  // namespace
}  // namespace mfprio::acct
