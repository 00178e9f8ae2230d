// fn_length.cpp - see fn_length.hpp.
#include "fn_length.hpp"

#include <cctype>
#include <cstring>

namespace mfprio::lint {

namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// A `'` after an identifier character: a digit separator (1'000) when the
// token it ends began with a digit, else a character literal's prefix (u8'a').
bool digit_separator(const std::string& t, size_t i) {
  if (i == 0 || !ident_char(t[i - 1])) return false;
  size_t b = i;
  while (b > 0 && (ident_char(t[b - 1]) || t[b - 1] == '\'')) --b;
  return std::isdigit(static_cast<unsigned char>(t[b])) != 0;
}

// `"` at i opens a raw string (R"d( ... )d", with an optional u8/u/U/L prefix).
bool raw_string_start(const std::string& t, size_t i) {
  if (i == 0 || t[i - 1] != 'R') return false;
  if (i == 1 || !ident_char(t[i - 2])) return true;
  const char p = t[i - 2];
  return (p == 'L' || p == 'u' || p == 'U' || p == '8') && (i == 2 || !ident_char(t[i - 3]) || p == '8');
}

void blank(std::string& out, size_t from, size_t to) {
  for (size_t k = from; k < to && k < out.size(); ++k)
    if (out[k] != '\n') out[k] = ' ';
}

// Index just past the literal opening at i (a quote `q`, escapes honoured).
size_t end_of_quoted(const std::string& t, size_t i, char q) {
  size_t k = i + 1;
  while (k < t.size() && t[k] != q && t[k] != '\n') k += (t[k] == '\\') ? 2 : 1;
  return k < t.size() ? k + 1 : t.size();
}

size_t end_of_raw(const std::string& t, size_t i) {
  const size_t open = t.find('(', i);
  if (open == std::string::npos) return t.size();
  const std::string close = ")" + t.substr(i + 1, open - i - 1) + "\"";
  const size_t e = t.find(close, open);
  return e == std::string::npos ? t.size() : e + close.size();
}

// A preprocessor line at i (first non-blank of its line is `#`): its end,
// backslash continuations included.
size_t end_of_directive(const std::string& t, size_t i) {
  size_t k = i;
  while (k < t.size()) {
    if (t[k] == '\n' && (k == 0 || t[k - 1] != '\\')) return k;
    ++k;
  }
  return k;
}

bool line_start(const std::string& t, size_t i) {
  size_t k = i;
  while (k > 0 && (t[k - 1] == ' ' || t[k - 1] == '\t')) --k;
  return k == 0 || t[k - 1] == '\n';
}

enum class Kind { Container, Data, Function, Inner, Initializer };

struct Scope {
  Kind kind;
  std::string name;  // a class's name, a function's
  int line;
};

size_t find_word(const std::string& s, const char* w) {
  const size_t n = std::strlen(w);
  for (size_t p = s.find(w); p != std::string::npos; p = s.find(w, p + 1)) {
    const bool before = p == 0 || !ident_char(s[p - 1]);
    const bool after = p + n >= s.size() || !ident_char(s[p + n]);
    if (before && after) return p;
  }
  return std::string::npos;
}

// `template <...>` prefixes removed (their `class T` is no class).
std::string strip_templates(std::string h) {
  for (size_t p = find_word(h, "template"); p != std::string::npos; p = find_word(h, "template")) {
    size_t k = h.find('<', p);
    if (k == std::string::npos) break;
    int depth = 0;
    size_t e = k;
    for (; e < h.size(); ++e) {
      if (h[e] == '<') ++depth;
      if (h[e] == '>' && --depth == 0) break;
    }
    h.erase(p, e + 1 - p);
  }
  return h;
}

size_t first_class_keyword(const std::string& h, std::string* name) {
  size_t best = std::string::npos;
  for (const char* w : {"class", "struct", "union", "enum", "namespace"}) {
    const size_t p = find_word(h, w);
    if (p < best) best = p;
  }
  if (best != std::string::npos) {
    size_t k = best;
    while (k < h.size() && ident_char(h[k])) ++k;  // the keyword
    while (k < h.size() && !ident_char(h[k])) ++k;
    size_t e = k;
    while (e < h.size() && ident_char(h[e])) ++e;
    *name = h.substr(k, e - k);
    if (*name == "class" || *name == "struct") {  // enum class X
      k = e;
      while (k < h.size() && !ident_char(h[k])) ++k;
      e = k;
      while (e < h.size() && ident_char(h[e])) ++e;
      *name = h.substr(k, e - k);
    }
  }
  return best;
}

// Index of the `)` matching the `(` at p, or npos.
size_t matching_paren(const std::string& h, size_t p) {
  int depth = 0;
  for (size_t k = p; k < h.size(); ++k) {
    if (h[k] == '(') ++depth;
    if (h[k] == ')' && --depth == 0) return k;
  }
  return std::string::npos;
}

bool assignment_outside_parens(const std::string& h) {
  if (find_word(h, "operator") != std::string::npos) return false;
  int depth = 0;
  for (size_t k = 0; k < h.size(); ++k) {
    const char c = h[k];
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (c != '=' || depth != 0) continue;
    const char prev = k > 0 ? h[k - 1] : ' ';
    const char next = k + 1 < h.size() ? h[k + 1] : ' ';
    if (next == '=' || prev == '=' || prev == '!' || prev == '<' || prev == '>') continue;
    return true;
  }
  return false;
}

// After the parameter list closing at q: a constructor's `:` (not `::`)?
bool has_ctor_colon(const std::string& h, size_t q) {
  for (size_t k = q + 1; k < h.size(); ++k) {
    if (h[k] != ':') continue;
    if (k + 1 < h.size() && h[k + 1] == ':') {
      ++k;
      continue;
    }
    return true;
  }
  return false;
}

std::string last_nonblank(const std::string& h) {
  size_t e = h.size();
  while (e > 0 && std::isspace(static_cast<unsigned char>(h[e - 1]))) --e;
  return e == 0 ? std::string() : std::string(1, h[e - 1]);
}

std::string name_before(const std::string& h, size_t p) {
  size_t e = p;
  while (e > 0 && std::isspace(static_cast<unsigned char>(h[e - 1]))) --e;
  size_t b = e;
  while (b > 0 && (ident_char(h[b - 1]) || h[b - 1] == ':' || h[b - 1] == '~')) --b;
  return h.substr(b, e - b);
}

// `__attribute__((...))` groups removed (their parentheses are no parameters).
std::string strip_attributes(std::string h) {
  for (size_t p = find_word(h, "__attribute__"); p != std::string::npos; p = find_word(h, "__attribute__")) {
    const size_t open = h.find('(', p);
    const size_t close = open == std::string::npos ? std::string::npos : matching_paren(h, open);
    if (close == std::string::npos) break;
    h.erase(p, close + 1 - p);
  }
  return h;
}

// The parameter list's `(` and the function's name; `operator()(...)` and
// `operator bool()` included.
size_t parameters(const std::string& h, std::string* name) {
  const size_t op = find_word(h, "operator");
  size_t p = h.find('(');
  if (op == std::string::npos || op > p) {
    if (p != std::string::npos) *name = name_before(h, p);
    return p;
  }
  size_t k = op + 8;
  while (k < h.size() && std::isspace(static_cast<unsigned char>(h[k]))) ++k;
  p = (h.compare(k, 2, "()") == 0) ? h.find('(', k + 2) : h.find('(', k);
  if (p == std::string::npos) return p;
  std::string sym = h.substr(k, p - k);
  while (!sym.empty() && std::isspace(static_cast<unsigned char>(sym.back()))) sym.pop_back();
  *name = name_before(h, op + 8) + (ident_char(sym.empty() ? ' ' : sym[0]) ? " " : "") + sym;
  return p;
}

// What the `{` after head `h` opens, outside any function body.
Scope classify(const std::string& head, int line) {
  const std::string h = strip_attributes(strip_templates(head));
  std::string cname, fname;
  const size_t k = first_class_keyword(h, &cname);
  const size_t p = parameters(h, &fname);
  if (k != std::string::npos && (p == std::string::npos || k < p))
  {
    if (find_word(h, "enum") == k) return {Kind::Data, "", line};
    // Only classes name their members; namespaces are not part of the name.
    return {Kind::Container, find_word(h, "namespace") == k ? std::string() : cname, line};
  }
  if (p == std::string::npos)
    return {find_word(h, "extern") != std::string::npos ? Kind::Container : Kind::Data, "", line};
  if (assignment_outside_parens(h)) return {Kind::Data, "", line};
  const size_t q = matching_paren(h, p);
  if (q != std::string::npos && has_ctor_colon(h, q)) {
    const std::string last = last_nonblank(h.substr(q + 1));
    if (!last.empty() && (ident_char(last[0]) || last[0] == '>')) return {Kind::Initializer, "", line};
  }
  return {Kind::Function, fname, line};
}

}  // namespace

std::string blank_non_code(const std::string& text) {
  std::string out = text;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    const char n = i + 1 < text.size() ? text[i + 1] : '\0';
    size_t end = i;
    if (c == '/' && n == '/') {
      end = text.find('\n', i);
      if (end == std::string::npos) end = text.size();
    } else if (c == '/' && n == '*') {
      end = text.find("*/", i + 2);
      end = end == std::string::npos ? text.size() : end + 2;
    } else if (c == '#' && line_start(text, i)) {
      end = end_of_directive(text, i);
    } else if (c == '"') {
      const bool raw = raw_string_start(text, i);
      end = raw ? end_of_raw(text, i) : end_of_quoted(text, i, '"');
      blank(out, i + 1, end - 1);  // keep the quotes: `"..."` stays a token
      i = end;
      continue;
    } else if (c == '\'' && !digit_separator(text, i)) {
      end = end_of_quoted(text, i, '\'');
      blank(out, i + 1, end - 1);
      i = end;
      continue;
    } else {
      ++i;
      continue;
    }
    blank(out, i, end);
    i = end;
  }
  return out;
}

std::vector<Function> functions(const std::string& text, std::string* error) {
  const std::string t = blank_non_code(text);
  std::vector<Function> out;
  std::vector<Scope> stack;
  std::string head;
  int line = 1;
  auto in_body = [&stack] {
    for (const Scope& s : stack)
      if (s.kind == Kind::Function || s.kind == Kind::Data) return true;
    return false;
  };
  for (char c : t) {
    if (c == '\n') ++line;
    if (c == '{') {
      if (in_body()) {
        stack.push_back({Kind::Inner, "", line});
      } else {
        Scope s = classify(head, line);
        if (s.kind == Kind::Function) {
          std::string prefix;
          for (const Scope& o : stack)
            if (!o.name.empty()) prefix += o.name + "::";
          s.name = prefix + s.name;
        }
        stack.push_back(s);
        if (s.kind != Kind::Initializer) head.clear();
      }
      continue;
    }
    if (c == '}') {
      if (stack.empty()) {
        *error = "line " + std::to_string(line) + ": '}' without '{'";
        return out;
      }
      const Scope s = stack.back();
      stack.pop_back();
      if (s.kind == Kind::Function) out.push_back({s.name, s.line, line > s.line ? line - s.line - 1 : 0});
      if (s.kind == Kind::Initializer) {
        head += "{}";
      } else if (!in_body()) {
        head.clear();
      }
      continue;
    }
    if (in_body()) continue;
    if (c == ';') {
      head.clear();
    } else {
      head += c;
    }
  }
  if (!stack.empty()) *error = "line " + std::to_string(stack.back().line) + ": '{' never closed";
  return out;
}

}  // namespace mfprio::lint
