// Golden tests of flux_csv: flux-accounting export-db files, with and without
// a header row, good and bad lines.
#include <gtest/gtest.h>

#include "flux_csv.hpp"

namespace mfprio::flux {
namespace {

// Every reader of flux_csv has this shape: text, file name, records, why.
template <typename Rec>
using Reader = bool (*)(const std::string&, const std::string&, std::vector<Rec>*, std::string*);

// `read` accepts `text` (as `file`) into *out; the failure names why.
template <typename Rec>
::testing::AssertionResult reads(Reader<Rec> read, const std::string& text, const std::string& file,
                                 std::vector<Rec>* out) {
  std::string why;
  if (read(text, file, out, &why)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << why;
}

// An input a reader must refuse, and the whole message it must give.
struct Refused {
  const char* text;
  const char* file;
  const char* why;
};

// Each case is refused with exactly its message and leaves the records
// (`before`) untouched.
template <typename Rec>
void expect_refused(Reader<Rec> read, const std::vector<Refused>& cases, const std::vector<Rec>& before = {}) {
  for (const Refused& c : cases) {
    SCOPED_TRACE(c.text);
    std::vector<Rec> out = before;
    std::string why;
    EXPECT_FALSE(read(c.text, c.file, &out, &why));
    EXPECT_EQ(why, c.why);
    EXPECT_EQ(out.size(), before.size());  // untouched
  }
}

TEST(FluxCsvSyntax, QuotesEscapesCrlfAndBlankLines) {
  std::vector<CsvRecord> r;
  ASSERT_TRUE(reads(split_csv, "a,\"b,c\",\"say \"\"hi\"\"\"\r\n\r\nx,,\n\"multi\nline\",2\n", "t.csv", &r));
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].fields, (std::vector<std::string>{"a", "b,c", "say \"hi\""}));
  EXPECT_EQ(r[0].line, 1);
  EXPECT_EQ(r[1].fields, (std::vector<std::string>{"x", "", ""}));
  EXPECT_EQ(r[1].line, 3);
  EXPECT_EQ(r[2].fields, (std::vector<std::string>{"multi\nline", "2"}));
  EXPECT_EQ(r[2].line, 4);
}

TEST(FluxCsvSyntax, UnclosedQuoteNamesFileAndLine) {
  std::vector<CsvRecord> r;
  std::string why;
  EXPECT_FALSE(split_csv("a,b\nc,\"d\n", "users.csv", &r, &why));
  EXPECT_EQ(why, "users.csv:2: quoted field is not closed");
  EXPECT_FALSE(split_csv("a,\"b\"c\n", "users.csv", &r, &why));
  EXPECT_NE(why.find("users.csv:1"), std::string::npos) << why;
}

TEST(FluxCsvBanks, HeaderlessLegacyOrder) {
  std::vector<BankRecord> b;
  ASSERT_TRUE(reads(read_banks_csv, "root,,1\nA,root,3\nB,root,\n", "banks.csv", &b));
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].name, "root");
  EXPECT_EQ(b[0].parent, "");
  EXPECT_EQ(b[1].parent, "root");
  EXPECT_EQ(b[1].shares, 3);
  EXPECT_EQ(b[2].shares, 1);  // blank -> default
  EXPECT_EQ(b[2].line, 3);
}

TEST(FluxCsvBanks, BankTableWithHeaderAsTheNewestExportWritesIt) {
  const std::string text =
      "bank_id,bank,active,parent_bank,shares,job_usage,priority,ignore_older_than\r\n"
      "1,root,1,,1,0.0,0.0,0\r\n"
      "2,A,1,root,2,10.5,2.5,0\r\n"
      "3,old,0,root,1,0.0,0.0,0\r\n";
  std::vector<BankRecord> b;
  ASSERT_TRUE(reads(read_banks_csv, text, "bank_table.csv", &b));
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[1].name, "A");
  EXPECT_EQ(b[1].shares, 2);
  EXPECT_DOUBLE_EQ(b[1].job_usage, 10.5);
  EXPECT_DOUBLE_EQ(b[1].priority, 2.5);
  EXPECT_FALSE(b[2].active);
  EXPECT_EQ(b[2].line, 4);
}

TEST(FluxCsvBanks, CamelCaseHeader) {
  std::vector<BankRecord> b;
  ASSERT_TRUE(reads(read_banks_csv, "Bank,ParentBank,Shares\nroot,,1\n", "banks.csv", &b));
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].line, 2);
}

TEST(FluxCsvBanks, BadLinesNameFileLineAndColumn) {
  expect_refused<BankRecord>(
      read_banks_csv,
      {{"root,,1\nA,root,x\n", "banks.csv", "banks.csv:2: column 'shares': 'x' is not an integer >= 0"},
       {"root,,1\nA,root\n", "banks.csv", "banks.csv:2: 2 fields, expected 3"},
       {"root,,1\n,root,1\n", "banks.csv", "banks.csv:2: column 'bank' is empty (a bank needs it)"},
       {"root,,1\nroot,,2\n", "banks.csv", "banks.csv:2: bank 'root' already given at line 1"},
       {"bank,parent_bank,priority\nroot,,high\n", "b.csv", "b.csv:2: column 'priority': 'high' is not a number"},
       {"bank_id,bank,active\n1,root,2\n", "b.csv", "b.csv:2: column 'active': '2' is not 0 or 1"}},
      {BankRecord{}});
}

TEST(FluxCsvUsers, HeaderlessLegacyOrderWithQuotedQueueList) {
  const std::string text =
      "alice,1001,A,1,5,7,2147483647,\"batch,debug\"\n"
      "bob,1002,A,,,,,\n";
  std::vector<UserRecord> u;
  ASSERT_TRUE(reads(read_users_csv, text, "users.csv", &u));
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u[0].username, "alice");
  EXPECT_EQ(u[0].userid, 1001);
  EXPECT_EQ(u[0].bank, "A");
  EXPECT_EQ(u[0].queues, (std::vector<std::string>{"batch", "debug"}));
  EXPECT_EQ(u[1].shares, 1);            // pop-db defaults for blanks
  EXPECT_EQ(u[1].max_running_jobs, 5);
  EXPECT_EQ(u[1].max_active_jobs, 7);
  EXPECT_EQ(u[1].max_nodes, 2147483647);
  EXPECT_TRUE(u[1].queues.empty());
}

TEST(FluxCsvUsers, AssociationTableWithHeader) {
  const std::string text =
      "creation_time,mod_time,active,username,userid,bank,default_bank,shares,job_usage,fairshare,"
      "max_running_jobs,max_active_jobs,max_nodes,max_cores,queues,projects,default_project,max_sched_jobs\n"
      "1700000000,0,1,alice,1001,A,A,3,16089.0,0.666667,5,7,2147483647,2147483647,\"batch,debug\",*,*,"
      "2147483647\n";
  std::vector<UserRecord> u;
  ASSERT_TRUE(reads(read_users_csv, text, "association_table.csv", &u));
  ASSERT_EQ(u.size(), 1u);
  EXPECT_EQ(u[0].shares, 3);
  EXPECT_DOUBLE_EQ(u[0].job_usage, 16089.0);
  EXPECT_DOUBLE_EQ(u[0].fairshare, 0.666667);
  EXPECT_EQ(u[0].default_bank, "A");
  EXPECT_EQ(u[0].projects, (std::vector<std::string>{"*"}));
  EXPECT_EQ(u[0].queues.size(), 2u);
  EXPECT_EQ(u[0].line, 2);
}

TEST(FluxCsvUsers, DocumentedCamelCaseHeader) {
  std::vector<UserRecord> u;
  ASSERT_TRUE(reads(read_users_csv,
                    "Username,UserID,Bank,Shares,MaxRunningJobs,MaxActiveJobs,MaxNodes,Queues\n"
                    "carol,7,B,2,1,2,3,\n",
                    "users.csv", &u));
  ASSERT_EQ(u.size(), 1u);
  EXPECT_EQ(u[0].userid, 7);
  EXPECT_EQ(u[0].max_nodes, 3);
}

TEST(FluxCsvUsers, BadLinesNameFileLineAndColumn) {
  expect_refused<UserRecord>(
      read_users_csv,
      {{"alice,uid,A,1,5,7,1,\n", "users.csv", "users.csv:1: column 'userid': 'uid' is not an integer"},
       {"username,shares\nalice,1\n", "users.csv", "users.csv:1: header has no 'bank' column"},
       {"username,bank\nalice,A\nalice,A\n", "users.csv", "users.csv:3: user 'alice' in bank 'A' already given at line 2"},
       {"username,bank,bank\n", "users.csv", "users.csv:1: column 'bank' appears twice"}});
}

TEST(FluxCsvQueues, QueueTableNeedsAHeader) {
  std::vector<QueueRecord> q;
  std::string why;
  ASSERT_TRUE(reads(read_queues_csv,
                    "queue,min_nodes_per_job,max_nodes_per_job,max_time_per_job,priority\n"
                    "batch,1,1,60,2\ndebug,1,1,60,-1\n",
                    "queue_table.csv", &q));
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[0].priority, 2);
  EXPECT_EQ(q[1].priority, -1);
  EXPECT_FALSE(read_queues_csv("batch,1,1,60,2\n", "queue_table.csv", &q, &why));
  EXPECT_NE(why.find("queue_table.csv:1: expected a header row"), std::string::npos) << why;
}

}  // namespace
}  // namespace mfprio::flux
