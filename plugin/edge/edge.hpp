// edge.hpp - the extern "C" border shared by every plugin shared object.
//
// Every ABI function body (edge.cpp, written once for every family) runs
// inside guarded(), which turns any exception (std::bad_alloc included) into
// a status and a per-thread message, so no C++ exception ever crosses into
// the host.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <string>

#include "mfprio/mfprio.h"

namespace mfprio::edge {

// The calling thread's last message (errmsg()).
inline std::string& last_error() {
  thread_local std::string msg;
  return msg;
}

inline int fail(int status, std::string msg) {
  last_error() = std::move(msg);
  return status;
}

// Runs fn() -> int; maps exceptions to statuses.  Clears the message first
// so errmsg() after a success is "".
template <class Fn>
int guarded(const char* where, Fn&& fn) noexcept {
  try {
    last_error().clear();
    return fn();
  } catch (const std::bad_alloc&) {
    try { last_error() = std::string(where) + ": out of memory"; } catch (...) {}
    return MFPRIO_ENOMEM;
  } catch (const std::exception& e) {
    try { last_error() = std::string(where) + ": internal error: " + e.what(); } catch (...) {}
    return MFPRIO_EINTERNAL;
  } catch (...) {
    try { last_error() = std::string(where) + ": internal error"; } catch (...) {}
    return MFPRIO_EINTERNAL;
  }
}

// Copies a std::string into malloc'd memory the host frees with free_string().
inline char* dup_string(const std::string& s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (!p) throw std::bad_alloc();
  std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

}  // namespace mfprio::edge
