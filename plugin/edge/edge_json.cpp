// edge_json.cpp - see edge_json.hpp.
//
// JSON shapes (documented in mfprio.h and README):
//   job_factors_json  {"job_id", "user", "account", "partition",
//                      "resolved_partition", "qos", "priority", "unclamped",
//                      "clamped": "none"|"low"|"high",
//                      "terms": [{"name", "label", "factor", "weight",
//                                 "contribution", "parent", "capped"[, "text"]}],
//                      "factors": {top-level term name: factor},
//                      "weighted": {top-level term name: contribution}}
//   share_table_json  {"columns": [{"name", "label", "decimals", "long", "text"}],
//                      "rows": [{"parent", "depth", "account"[, "user"][, "partition"],
//                                column name: number or string}]}
//   plugin_info_json  {"plugin_type", "abi_version", "weights": {...},
//                      "terms": [{"name", "label", "flags", "width", "parent"}], settings...}
//                     a setting is a number, string, boolean or array of strings
//                     a dotted key nests (put_items: "view.layout" -> {"view": {"layout"}},
//                     the view layout a family declares, mfprio.h's man page) unless its
//                     outer part is a key of its own ("SERV": 1, "SERV.QUEUETIME": 5)
// Non-finite numbers are written as the strings "inf", "-inf", "nan" (JSON
// has no such numbers); blank text cells are left out.
#include "edge_json.hpp"

#include <jansson.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <set>
#include <string>
#include <vector>

namespace mfprio::edge {
namespace {

struct JsonDel {
  void operator()(json_t* j) const { json_decref(j); }
};
using Json = std::unique_ptr<json_t, JsonDel>;

json_t* number(double v) {
  if (std::isfinite(v)) return json_real(v);
  return json_string(std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf"));
}

// A term or column name from a fixed buffer (never past its end).
template <size_t N>
std::string fixed_str(const char (&buf)[N]) {
  return std::string(buf, strnlen(buf, N));
}

char* dump(json_t* j) {
  Json owned(j);
  if (!j) throw std::bad_alloc();
  char* s = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17));
  if (!s) throw std::bad_alloc();  // jansson's malloc: free_string's free() matches
  return s;
}

}  // namespace

char* factors_json(const mfprio_job_t& job, const mfprio_factors_t& f) {
  json_t* o = json_object();
  json_object_set_new(o, "job_id", json_integer(static_cast<json_int_t>(job.job_id)));
  json_object_set_new(o, "user", json_string(job.user ? job.user : ""));
  json_object_set_new(o, "account", json_string(fixed_str(f.account_name).c_str()));
  json_object_set_new(o, "partition", json_string(job.partition ? job.partition : ""));
  json_object_set_new(o, "resolved_partition", json_string(fixed_str(f.partition_name).c_str()));
  json_object_set_new(o, "qos", json_string(fixed_str(f.qos_name).c_str()));
  json_object_set_new(o, "priority", json_integer(f.priority));
  json_object_set_new(o, "unclamped", number(f.unclamped));
  json_object_set_new(o, "clamped", json_string(f.clamped == MFPRIO_CLAMP_HIGH  ? "high"
                                                : f.clamped == MFPRIO_CLAMP_LOW ? "low"
                                                                                : "none"));
  json_t* terms = json_array();
  json_t* factors = json_object();
  json_t* weighted = json_object();
  const uint32_t n = f.term_count < MFPRIO_MAX_TERMS ? f.term_count : MFPRIO_MAX_TERMS;
  for (uint32_t i = 0; i < n; ++i) {
    const mfprio_term_t& t = f.terms[i];
    const std::string name = fixed_str(t.name);
    json_t* e = json_object();
    json_object_set_new(e, "name", json_string(name.c_str()));
    json_object_set_new(e, "label", json_string(fixed_str(t.label).c_str()));
    json_object_set_new(e, "factor", number(t.factor));
    json_object_set_new(e, "weight", number(t.weight));
    json_object_set_new(e, "contribution", number(t.contribution));
    json_object_set_new(e, "parent", json_integer(t.parent));
    json_object_set_new(e, "capped", json_boolean(t.flags & MFPRIO_TERMF_CAPPED));
    if (t.flags & MFPRIO_TERMF_TEXT) json_object_set_new(e, "text", json_string(fixed_str(t.text).c_str()));
    json_array_append_new(terms, e);
    if (t.parent < 0 && !(t.flags & MFPRIO_TERMF_TEXT)) {
      json_object_set_new(factors, name.c_str(), number(t.factor));
      json_object_set_new(weighted, name.c_str(), number(t.contribution));
    }
  }
  json_object_set_new(o, "terms", terms);
  json_object_set_new(o, "factors", factors);
  json_object_set_new(o, "weighted", weighted);
  return dump(o);
}

char* share_json(const ShareView& v) {
  json_t* o = json_object();
  json_t* cols = json_array();
  for (const mfprio_share_column_t& c : v.columns) {
    json_t* e = json_object();
    json_object_set_new(e, "name", json_string(fixed_str(c.name).c_str()));
    json_object_set_new(e, "label", json_string(fixed_str(c.label).c_str()));
    json_object_set_new(e, "decimals", json_integer(c.decimals));
    json_object_set_new(e, "long", json_boolean(c.flags & MFPRIO_COLF_LONG));
    json_object_set_new(e, "text", json_boolean(c.flags & MFPRIO_COLF_TEXT));
    json_array_append_new(cols, e);
  }
  json_object_set_new(o, "columns", cols);
  json_t* rows = json_array();
  for (const ShareView::Row& r : v.rows) {
    json_t* e = json_object();
    json_object_set_new(e, "parent", json_integer(r.parent));
    json_object_set_new(e, "depth", json_integer(r.depth));
    json_object_set_new(e, "account", json_string(r.account.c_str()));
    if (r.is_user) json_object_set_new(e, "user", json_string(r.user.c_str()));
    if (!r.partition.empty()) json_object_set_new(e, "partition", json_string(r.partition.c_str()));
    for (size_t i = 0; i < v.columns.size() && i < r.cells.size(); ++i) {
      const std::string key = fixed_str(v.columns[i].name);
      if (json_object_get(e, key.c_str())) continue;  // the row's identity wins
      const ShareView::Cell& c = r.cells[i];
      if (c.is_text) {
        if (!c.text.empty()) json_object_set_new(e, key.c_str(), json_string(c.text.c_str()));
      } else {
        json_object_set_new(e, key.c_str(), number(c.value));
      }
    }
    json_array_append_new(rows, e);
  }
  json_object_set_new(o, "rows", rows);
  return dump(o);
}

namespace {
json_t* item_value(const InfoView::Item& it) {
  switch (it.kind) {
    case InfoView::Item::Number: return number(it.number);
    case InfoView::Item::Integer: return json_integer(static_cast<json_int_t>(it.integer));
    case InfoView::Item::String: return json_string(it.string.c_str());
    case InfoView::Item::Bool: return json_boolean(it.boolean);
    case InfoView::Item::List: {
      json_t* a = json_array();
      for (const std::string& s : it.list) json_array_append_new(a, json_string(s.c_str()));
      return a;
    }
  }
  return json_null();
}

// Sets each item's key in o.  A dotted key nests under its parts, at most
// `levels` dots deep ("view.terms.A" -> {"view": {"terms": {"A": v}}};
// weights nest once, "tres.cpu" -> {"tres": {"cpu": v}}), except under a
// part that is itself one of the items' keys: from there the rest of the key
// stays flat beside it, so a value and its sub-values both appear whatever
// their order ("SERV": 1, "SERV.QUEUETIME": 5: maui's component weight and
// its sub-weight, the sub-term's name as job_factors gives it).
void put_items(json_t* o, const std::vector<InfoView::Item>& items, size_t levels) {
  std::set<std::string> keys;
  for (const InfoView::Item& it : items) keys.insert(it.key);
  for (const InfoView::Item& it : items) {
    json_t* at = o;
    size_t start = 0;
    size_t nested = 0;
    for (size_t dot = it.key.find('.'); dot != std::string::npos && nested < levels;
         dot = it.key.find('.', dot + 1), ++nested) {
      if (keys.count(it.key.substr(0, dot))) break;
      const std::string part = it.key.substr(start, dot - start);
      json_t* sub = json_object_get(at, part.c_str());
      if (!json_is_object(sub)) {
        sub = json_object();
        json_object_set_new(at, part.c_str(), sub);
      }
      at = sub;
      start = dot + 1;
    }
    json_object_set_new(at, it.key.substr(start).c_str(), item_value(it));
  }
}
}  // namespace

char* info_json(const char* plugin_type, const InfoView& v) {
  json_t* o = json_object();
  json_object_set_new(o, "plugin_type", json_string(plugin_type));
  json_object_set_new(o, "abi_version", json_integer(MFPRIO_ABI_VERSION));
  json_t* w = json_object();
  put_items(w, v.weights, 1);
  json_object_set_new(o, "weights", w);
  if (!v.terms.empty()) {
    json_t* terms = json_array();
    for (const InfoView::TermInfo& t : v.terms) {
      json_t* e = json_object();
      json_object_set_new(e, "name", json_string(t.name.c_str()));
      json_object_set_new(e, "label", json_string(t.label.c_str()));
      json_object_set_new(e, "flags", json_integer(t.flags));
      json_object_set_new(e, "width", json_integer(t.width));
      json_object_set_new(e, "parent", json_integer(-1));
      json_array_append_new(terms, e);
    }
    json_object_set_new(o, "terms", terms);
  }
  put_items(o, v.settings, std::string::npos);
  return dump(o);
}

}  // namespace mfprio::edge
