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

// A member of a plugin_info_json document (null when the text is not a JSON
// object or has no such member); `root` keeps the document alive.
struct InfoMember {
  JsonPtr root;
  const json_t* value = nullptr;
};
inline InfoMember info_member(const std::string& info_json, const char* key) {
  InfoMember m;
  m.root.reset(info_json.empty() ? nullptr : json_loads(info_json.c_str(), 0, nullptr));
  if (m.root && json_is_object(m.root.get())) m.value = json_object_get(m.root.get(), key);
  return m;
}

}  // namespace mfprio::host
