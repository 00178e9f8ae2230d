// fault_vfs.cpp - see fault_vfs.hpp.  A shim VFS: each FaultFile holds the
// real file right after itself and forwards every method; the four counted
// methods check the armed fault first.  Shared-memory methods (WAL) are
// forwarded as they are.
#include "fault_vfs.hpp"

#include <sqlite3.h>

#include <cstdlib>
#include <cstring>

namespace mfprio::acct::fault_vfs {
namespace {

struct State {
  bool armed = false;
  Op op = Op::Write;
  uint64_t n = 0, seen = 0;
  int rc = SQLITE_IOERR;
  bool fired = false;
} g;

sqlite3_vfs* g_real = nullptr;
sqlite3_vfs g_vfs;

struct FaultFile {
  sqlite3_file base;
  sqlite3_file* real() { return reinterpret_cast<sqlite3_file*>(this + 1); }
};

FaultFile* ff(sqlite3_file* f) { return reinterpret_cast<FaultFile*>(f); }

// True when this call is the one to fail.
bool hit(Op op) {
  if (!g.armed || g.op != op) return false;
  if (++g.seen != g.n) return false;
  g.fired = true;
  return true;
}

int xClose(sqlite3_file* f) {
  sqlite3_file* r = ff(f)->real();
  return r->pMethods ? r->pMethods->xClose(r) : SQLITE_OK;
}
int xRead(sqlite3_file* f, void* buf, int amt, sqlite3_int64 off) {
  if (hit(Op::Read)) return g.rc == SQLITE_IOERR ? SQLITE_IOERR_READ : g.rc;
  return ff(f)->real()->pMethods->xRead(ff(f)->real(), buf, amt, off);
}
int xWrite(sqlite3_file* f, const void* buf, int amt, sqlite3_int64 off) {
  if (hit(Op::Write)) return g.rc == SQLITE_IOERR ? SQLITE_IOERR_WRITE : g.rc;
  return ff(f)->real()->pMethods->xWrite(ff(f)->real(), buf, amt, off);
}
int xTruncate(sqlite3_file* f, sqlite3_int64 size) { return ff(f)->real()->pMethods->xTruncate(ff(f)->real(), size); }
int xSync(sqlite3_file* f, int flags) {
  if (hit(Op::Sync)) return g.rc == SQLITE_IOERR ? SQLITE_IOERR_FSYNC : g.rc;
  return ff(f)->real()->pMethods->xSync(ff(f)->real(), flags);
}
int xFileSize(sqlite3_file* f, sqlite3_int64* size) { return ff(f)->real()->pMethods->xFileSize(ff(f)->real(), size); }
int xLock(sqlite3_file* f, int lock) {
  if (hit(Op::Lock)) return g.rc == SQLITE_IOERR ? SQLITE_IOERR_LOCK : g.rc;
  return ff(f)->real()->pMethods->xLock(ff(f)->real(), lock);
}
int xUnlock(sqlite3_file* f, int lock) { return ff(f)->real()->pMethods->xUnlock(ff(f)->real(), lock); }
int xCheckReservedLock(sqlite3_file* f, int* out) {
  return ff(f)->real()->pMethods->xCheckReservedLock(ff(f)->real(), out);
}
int xFileControl(sqlite3_file* f, int op, void* arg) {
  return ff(f)->real()->pMethods->xFileControl(ff(f)->real(), op, arg);
}
int xSectorSize(sqlite3_file* f) { return ff(f)->real()->pMethods->xSectorSize(ff(f)->real()); }
int xDeviceCharacteristics(sqlite3_file* f) {
  return ff(f)->real()->pMethods->xDeviceCharacteristics(ff(f)->real());
}
int xShmMap(sqlite3_file* f, int pg, int sz, int extend, void volatile** p) {
  return ff(f)->real()->pMethods->xShmMap(ff(f)->real(), pg, sz, extend, p);
}
int xShmLock(sqlite3_file* f, int offset, int n, int flags) {
  // Only taking a lock fails (a failed unlock would leave SQLite's state unknown).
  if (!(flags & SQLITE_SHM_UNLOCK) && hit(Op::ShmLock)) return g.rc == SQLITE_IOERR ? SQLITE_IOERR_SHMLOCK : g.rc;
  return ff(f)->real()->pMethods->xShmLock(ff(f)->real(), offset, n, flags);
}
void xShmBarrier(sqlite3_file* f) { ff(f)->real()->pMethods->xShmBarrier(ff(f)->real()); }
int xShmUnmap(sqlite3_file* f, int del) { return ff(f)->real()->pMethods->xShmUnmap(ff(f)->real(), del); }

// Version 2 methods only: no memory-mapped fetch, so every page read goes
// through xRead (and can fail there).
const sqlite3_io_methods kMethods = {
    2,          xClose,     xRead,      xWrite,      xTruncate,   xSync,
    xFileSize,  xLock,      xUnlock,    xCheckReservedLock,       xFileControl,
    xSectorSize, xDeviceCharacteristics, xShmMap,    xShmLock,    xShmBarrier,
    xShmUnmap,  nullptr,    nullptr};

int vOpen(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* f, int flags, int* out_flags) {
  FaultFile* p = ff(f);
  std::memset(p, 0, sizeof *p);
  sqlite3_file* r = p->real();
  std::memset(r, 0, static_cast<size_t>(g_real->szOsFile));
  const int rc = g_real->xOpen(g_real, name, r, flags, out_flags);
  // SQLite calls xClose even when xOpen fails if pMethods is set.
  p->base.pMethods = r->pMethods ? &kMethods : nullptr;
  return rc;
}
int vDelete(sqlite3_vfs*, const char* name, int sync) { return g_real->xDelete(g_real, name, sync); }
int vAccess(sqlite3_vfs*, const char* name, int flags, int* out) { return g_real->xAccess(g_real, name, flags, out); }
int vFullPathname(sqlite3_vfs*, const char* name, int n, char* out) {
  return g_real->xFullPathname(g_real, name, n, out);
}
void* vDlOpen(sqlite3_vfs*, const char* name) { return g_real->xDlOpen(g_real, name); }
void vDlError(sqlite3_vfs*, int n, char* out) { g_real->xDlError(g_real, n, out); }
void (*vDlSym(sqlite3_vfs*, void* h, const char* sym))(void) { return g_real->xDlSym(g_real, h, sym); }
void vDlClose(sqlite3_vfs*, void* h) { g_real->xDlClose(g_real, h); }
int vRandomness(sqlite3_vfs*, int n, char* out) { return g_real->xRandomness(g_real, n, out); }
int vSleep(sqlite3_vfs*, int us) { return g_real->xSleep(g_real, us); }
int vCurrentTime(sqlite3_vfs*, double* t) { return g_real->xCurrentTime(g_real, t); }
int vGetLastError(sqlite3_vfs*, int n, char* out) { return g_real->xGetLastError(g_real, n, out); }
int vCurrentTimeInt64(sqlite3_vfs*, sqlite3_int64* t) { return g_real->xCurrentTimeInt64(g_real, t); }

}  // namespace

void install() {
  if (g_real) return;
  g_real = sqlite3_vfs_find("unix");
  if (!g_real) std::abort();
  std::memset(&g_vfs, 0, sizeof g_vfs);
  g_vfs.iVersion = 2;
  g_vfs.szOsFile = static_cast<int>(sizeof(FaultFile)) + g_real->szOsFile;
  g_vfs.mxPathname = g_real->mxPathname;
  g_vfs.zName = "mfprio-fault";
  g_vfs.xOpen = vOpen;
  g_vfs.xDelete = vDelete;
  g_vfs.xAccess = vAccess;
  g_vfs.xFullPathname = vFullPathname;
  g_vfs.xDlOpen = vDlOpen;
  g_vfs.xDlError = vDlError;
  g_vfs.xDlSym = vDlSym;
  g_vfs.xDlClose = vDlClose;
  g_vfs.xRandomness = vRandomness;
  g_vfs.xSleep = vSleep;
  g_vfs.xCurrentTime = vCurrentTime;
  g_vfs.xGetLastError = vGetLastError;
  g_vfs.xCurrentTimeInt64 = vCurrentTimeInt64;
  if (sqlite3_vfs_register(&g_vfs, /*makeDflt=*/1) != SQLITE_OK) std::abort();
}

void arm(Op op, uint64_t n, int rc) { g = State{true, op, n, 0, rc, false}; }
void disarm() { g.armed = false; }
bool fired() { return g.fired; }
uint64_t calls() { return g.seen; }

const char* op_name(Op op) {
  switch (op) {
    case Op::Write: return "xWrite";
    case Op::Sync: return "xSync";
    case Op::Read: return "xRead";
    case Op::Lock: return "xLock";
    case Op::ShmLock: return "xShmLock";
  }
  return "?";
}

}  // namespace mfprio::acct::fault_vfs
