// json_util.hpp - RAII for jansson values (json_decref on scope exit).
// Remember jansson's stealing setters: json_object_set_new / json_array_append_new
// take the reference, so pass them release()d pointers or fresh values.
#pragma once

#include <jansson.h>

#include <cstdlib>
#include <memory>
#include <string>

namespace mfprio::host {

struct JsonDeleter {
  void operator()(json_t* j) const { json_decref(j); }
};
using JsonPtr = std::unique_ptr<json_t, JsonDeleter>;

// json_dumps result, freed with free().
inline std::string json_dump_string(const json_t* j, size_t flags) {
  char* s = json_dumps(j, flags);
  if (!s) return std::string();
  std::string out(s);
  std::free(s);
  return out;
}

}  // namespace mfprio::host
