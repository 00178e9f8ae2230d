// bounded_read.hpp - the one bound rule for every file the programs read:
// the slurm.conf and its includes, files named in PriorityParameters (a
// maui.cfg, sched_conf, complexes), import files (JSON, flux CSV, qconf
// share trees, sacctmgr-style dumps, charge and job files) and workload
// traces (SWF, plain or gzip: the bound is on the decompressed bytes).
//
// A file is refused, with one message naming it and the bound, when it holds
// more than `max_bytes` or one line longer than `max_line` bytes; the size
// is checked before reading when the file says it (stat), and again while
// reading (a FIFO, /dev/zero, a file growing under us, a gzip bomb).  Only
// regular files are read whole.  A UTF-8 byte-order mark at the start of a
// file is not part of its text (editors on other systems write one).
//
// Entry points: read_bounded (a whole file), check_line_bound and
// check_total_bound (for a reader that streams, e.g. the gzip trace reader),
// strip_utf8_bom (text already in memory).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace mfprio {

struct ReadBounds {
  uint64_t max_bytes;  // the whole file (decompressed, for a trace)
  uint64_t max_line;   // one line, its '\n' excluded
  const char* what;    // "a configuration", "an input file", "a trace": for messages
};

// Conf-like files an admin writes by hand (conf.cpp applies the same two
// numbers across a conf and all its includes together).
inline constexpr ReadBounds kConfBounds{16ull << 20, 64ull << 10, "a configuration"};
// Import and input files written by tools (JSON may be on one line).
inline constexpr ReadBounds kImportBounds{256ull << 20, 16ull << 20, "an input file"};
// Workload traces: many records of ~100 bytes each.
inline constexpr ReadBounds kTraceBounds{4ull << 30, 64ull << 10, "a trace"};

// "file:line: ..." or "file: ..." for a file over a bound, and a file that
// cannot be opened or is not a regular file.
struct ReadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A size in words: "64 KiB", "16 MiB", "4 GiB", "100 bytes".
std::string bound_words(uint64_t bytes);

// Throws ReadError "file:line: line longer than N (the bound for WHAT)"
// when len > b.max_line.
void check_line_bound(const std::string& file, uint64_t line, uint64_t len, const ReadBounds& b);
// Throws ReadError "file: larger than N (the bound for WHAT)" when
// total > b.max_bytes.
void check_total_bound(const std::string& file, uint64_t total, const ReadBounds& b);

// Reads the regular file `path` whole, its leading UTF-8 BOM dropped.
// Throws ReadError "PATH: cannot read: why" (missing, unreadable, a
// directory, not a regular file) or one of the bound messages above.
std::string read_bounded(const std::string& path, const ReadBounds& b);

// Drops a leading UTF-8 BOM (EF BB BF) from `text`; true when there was one.
bool strip_utf8_bom(std::string& text);

}  // namespace mfprio
