// fault_vfs.hpp - a test-only SQLite VFS that fails the Nth call of one
// kind (STYLE.md habit 12, after SQLite's own *fault.test).
//
// fault_vfs::install() registers "mfprio-fault" as the process's default
// VFS, wrapping the platform VFS ("unix"): every file the Store opens goes
// through it.  arm(op, n, rc) makes the n-th call (1-based, counted from
// arm) of `op` on any file return `rc` (SQLITE_IOERR_*, SQLITE_FULL,
// SQLITE_BUSY) once; every other call is passed through.  fired() says
// whether the fault happened (n was reached).  disarm() stops counting.
// Not thread-safe: one test thread at a time.
#pragma once

#include <cstdint>

namespace mfprio::acct::fault_vfs {

// ShmLock: the WAL index's locks (xShmLock), which every transaction takes,
// a read one too: a read from the page cache after a commit reaches none of
// the others.
enum class Op { Write, Sync, Read, Lock, ShmLock };

void install();
void arm(Op op, uint64_t n, int rc);
void disarm();
bool fired();
uint64_t calls();  // calls of the armed op since arm()

const char* op_name(Op op);

}  // namespace mfprio::acct::fault_vfs
