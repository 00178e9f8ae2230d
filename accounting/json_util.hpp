// json_util.hpp - the jansson ownership and insertion rules accounting's
// importers and exporters share (was written again in each file).
#pragma once

#include <jansson.h>

#include <memory>
#include <new>

namespace mfprio::acct {

struct JsonDecref {
  void operator()(json_t* j) const noexcept { json_decref(j); }
};
using JsonPtr = std::unique_ptr<json_t, JsonDecref>;

// Adds v (a new reference, taken) under key; a NULL v or a failed set is
// jansson out of memory.
inline void put(json_t* obj, const char* key, json_t* v) {
  if (!v || json_object_set_new(obj, key, v) != 0) throw std::bad_alloc();
}

}  // namespace mfprio::acct
