// layout.cpp - see layout.hpp: the "view" key and the one list of layouts.
#include "layout.hpp"

#include <jansson.h>

#include <strings.h>

#include "json_util.hpp"
#include "layout_sge81.hpp"
#include "layout_slurm2205.hpp"
#include "strings.hpp"

namespace mfprio::host {
namespace {

// The layouts, by name.  A new layout is one file plus one line here.
const Layout* const kLayouts[] = {
    &slurm2205_layout(),
    &sge81_layout(),
};

void string_map(const json_t* obj, std::map<std::string, std::string>* out) {
  if (!json_is_object(obj)) return;
  const char* k;
  json_t* v;
  json_object_foreach(const_cast<json_t*>(obj), k, v) {
    if (json_is_string(v)) (*out)[k] = json_string_value(v);
  }
}

}  // namespace

bool ViewInfo::flag(const std::string& key, bool otherwise) const {
  auto it = flags.find(key);
  return it == flags.end() ? otherwise : it->second;
}

ViewInfo parse_view_info(const std::string& info_json) {
  ViewInfo v;
  v.weights = parse_weights(info_json);  // the top-level "weights" (older plugins)
  const InfoMember member = info_member(info_json, "view");
  const json_t* view = member.value;
  if (!json_is_object(view)) return v;
  if (const json_t* l = json_object_get(view, "layout"); json_is_string(l)) v.layout = json_string_value(l);
  string_map(json_object_get(view, "terms"), &v.terms);
  string_map(json_object_get(view, "share_columns"), &v.share_columns);
  const char* k;
  json_t* x;
  json_object_foreach(const_cast<json_t*>(view), k, x) {
    if (json_is_boolean(x)) v.flags[k] = json_is_true(x);
  }
  if (const json_t* w = json_object_get(view, "weights"); json_is_object(w)) {
    JsonPtr doc(json_object());
    json_object_set(doc.get(), "weights", const_cast<json_t*>(w));
    v.weights = parse_weights(json_dump_string(doc.get(), 0));
  }
  return v;
}

std::map<std::string, std::vector<std::string>> parse_conf_names(const std::string& info_json) {
  std::map<std::string, std::vector<std::string>> out;
  const InfoMember member = info_member(info_json, "conf_names");
  const json_t* names = member.value;
  if (!json_is_object(names)) return out;
  const char* kind;
  json_t* x;
  json_object_foreach(const_cast<json_t*>(names), kind, x) {
    if (json_is_array(x)) {
      std::vector<std::string>& list = out[kind];
      size_t i;
      json_t* n;
      json_array_foreach(x, i, n) {
        if (json_is_string(n) && *json_string_value(n)) list.push_back(json_string_value(n));
      }
    } else if (json_is_string(x)) {  // a plugin built before the array form: one comma-separated string
      out[kind] = split_nonempty(json_string_value(x), ',');
    }
  }
  return out;
}

const Layout* find_layout(const std::string& name) {
  for (const Layout* l : kLayouts)
    if (!name.empty() && strcasecmp(l->name(), name.c_str()) == 0) return l;
  return nullptr;
}

const Layout& format_layout() { return slurm2205_layout(); }

std::vector<std::string> layout_names() {
  std::vector<std::string> out;
  for (const Layout* l : kLayouts) out.push_back(l->name());
  return out;
}

}  // namespace mfprio::host
