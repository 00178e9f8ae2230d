// test_swf_bytes.cpp - the SWF reader (host-shim/swf.cpp) on bytes that are
// not text: a NUL byte at the start of a line (read before the buffer) and a
// NUL inside a line (silently joined with the next).  Built against swf.cpp
// alone so it does not depend on the rest of host-shim.
#include <gtest/gtest.h>

#include "swf.hpp"
#include "test_util.hpp"

using namespace mfprio::host;

namespace {

const std::string kRec = " 1 0 0 5 1 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n";

std::string read_error(const std::string& bytes) {
  mfprio::test::TempDir dir;
  const std::string path = dir.write("t.swf", bytes);
  try {
    read_swf(path);
  } catch (const SwfError& e) {
    return std::string(e.what()).substr(path.size());
  }
  return "(no error)";
}

TEST(SwfBytes, LineStartingWithNulIsAnErrorNamingTheLine) {
  EXPECT_EQ(read_error(kRec + std::string("\0 2 0 0 5\n", 10)), ":2: NUL byte in the line (not a text trace?)");
  EXPECT_EQ(read_error(std::string("\0", 1)), ":1: NUL byte in the line (not a text trace?)");
}

TEST(SwfBytes, NulInsideALineDoesNotJoinItWithTheNext) {
  // Without the fix " 1 0 0 5 1" + the next line made one 18-field record.
  const std::string first = " 1 0 0 5 1 -1 -1 -1 -1";
  const std::string rest = " -1 1 1 1 -1 -1 -1 -1 -1\n";
  EXPECT_EQ(read_error(first + std::string("\0", 1) + "junk\n" + rest), ":1: NUL byte in the line (not a text trace?)");
  EXPECT_EQ(read_error(kRec + kRec + std::string("; c\0x\n", 6)), ":3: NUL byte in the line (not a text trace?)");
}

TEST(SwfBytes, NulInParsedTextIsAnError) {
  try {
    parse_swf_text(kRec + std::string("\0\n", 2), "t.swf");
    FAIL() << "no error";
  } catch (const SwfError& e) {
    EXPECT_STREQ(e.what(), "t.swf:2: NUL byte in the line (not a text trace?)");
  }
}

TEST(SwfBytes, LongLinesStillReadWhole) {
  std::string pad(20000, ' ');
  mfprio::test::TempDir dir;
  const SwfTrace t = read_swf(dir.write("t.swf", pad + kRec + kRec));
  EXPECT_EQ(t.jobs.size(), 2u);
}

}  // namespace
