// test_swf_bytes.cpp - the SWF reader (host-shim/swf.cpp) on bytes that are
// not text: a NUL byte at the start of a line (read before the buffer) and a
// NUL inside a line (silently joined with the next).  Built against swf.cpp
// alone so it does not depend on the rest of host-shim.  Also the trace
// bounds (bounded_read.hpp): a line over 64 KiB and a gzip bomb stop with
// one message naming the file and the bound, memory never growing past them.
#include <gtest/gtest.h>

#include <zlib.h>

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

TEST(SwfBytes, ALineOverTheBoundIsRefusedNamingItsLine) {
  EXPECT_EQ(read_error(kRec + std::string(70 << 10, ' ') + kRec),
            ":2: line longer than 64 KiB (the bound for a trace)");
}

TEST(SwfBytes, AGzipBombStopsAtTheDecompressedBound) {
  // 8 MiB of blank lines in a few KiB of gzip; the bound here is 1 MiB.
  mfprio::test::TempDir dir;
  const std::string path = dir.path() + "/bomb.swf.gz";
  gzFile g = gzopen(path.c_str(), "wb9");
  ASSERT_NE(g, nullptr);
  const std::string blanks(1 << 16, '\n');
  for (int i = 0; i < 128; ++i) ASSERT_EQ(gzwrite(g, blanks.data(), blanks.size()), static_cast<int>(blanks.size()));
  ASSERT_EQ(gzclose(g), Z_OK);
  try {
    read_swf(path, 0, mfprio::ReadBounds{1 << 20, 64 << 10, "a trace"});
    FAIL() << "no error";
  } catch (const SwfError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": larger than 1 MiB (the bound for a trace)");
  }
  EXPECT_EQ(read_swf(path).jobs.size(), 0u);  // under the real bound: 8 MiB of nothing
}

TEST(SwfBytes, AUtf8BomOpeningTheTraceIsSkipped) {
  mfprio::test::TempDir dir;
  EXPECT_EQ(read_swf(dir.write("t.swf", "\xEF\xBB\xBF" + kRec)).jobs.size(), 1u);
}

}  // namespace
