// conf.cpp - the slurm.conf syntax reader declared in conf.hpp.
//
// Entry points: Conf::load (a file and its includes), Conf::parse (text).
// One logical line (physical lines joined by a trailing '\') is split into
// words at unquoted blanks; an unquoted '#' ends the line.  A word must be
// Key=Value, except a first word "Include" followed by one path.  Nothing is
// interpreted here: every pair, known or not, is kept in file order.
#include "conf.hpp"

#include "store_loc.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bounded_read.hpp"
#include "stable_order.hpp"

namespace mfprio {

namespace {

constexpr size_t kMaxIncludeDepth = 16;
// Bounds against `Include /dev/zero` and runaway files: one logical line
// (continuations joined) and all files of one load together; the numbers of
// the one bound rule (bounded_read.hpp) for files written by hand.
constexpr size_t kMaxLineBytes = kConfBounds.max_line;
constexpr size_t kMaxTotalBytes = kConfBounds.max_bytes;
// How much of a line an error message quotes.
constexpr size_t kQuoteBytes = 60;

// `s` for a message: at most kQuoteBytes bytes, control bytes as '?'.
std::string clip(std::string_view s) {
  std::string out(s.substr(0, kQuoteBytes));
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  if (s.size() > kQuoteBytes) out += "...";
  return out;
}

enum class Got { Line, Eof, TooLong };

// std::getline with a bound: reads up to '\n' (dropped); stops with TooLong
// once more than `max` bytes are pending, leaving the rest unread.
Got bounded_getline(std::istream& in, std::string& line, size_t max) {
  line.clear();
  std::streambuf* sb = in.rdbuf();
  for (;;) {
    const int c = sb->sbumpc();
    if (c == std::char_traits<char>::eof()) return line.empty() ? Got::Eof : Got::Line;
    if (c == '\n') return Got::Line;
    if (line.size() >= max) return Got::TooLong;
    line.push_back(static_cast<char>(c));
  }
}

// One blank-separated word of a line, quotes removed.
struct Word {
  std::string key;       // text before the first unquoted '='
  std::string value;     // text after it
  bool has_eq = false;   // an unquoted '=' was seen
  bool key_quoted = false;
  std::string raw;       // as written, for messages
};

bool is_key_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
}

// Thrown inside the parser to stop reading (a bound was hit); its message
// has already been collected.
struct StopReading {};

}  // namespace

class Conf::Parser {
 public:
  explicit Parser(std::vector<ConfPair>* out) : out_(out) {}

  // Every error found, one "file:line: why" each, in reading order; thrown
  // together as one ConfError (one message per line) when the load is over.
  void finish() const {
    if (errors_.empty()) return;
    std::string all;
    for (const std::string& e : errors_) all += (all.empty() ? "" : "\n") + e;
    throw ConfError(all);
  }

  void run_file(const std::string& path) {
    try {
      parse_file(path, "", 0);
    } catch (const ConfError& e) {
      errors_.push_back(e.what());
    } catch (const StopReading&) {
    }
  }
  void run_text(const std::string& text, const std::string& file) {
    try {
      parse_text(text, file);
    } catch (const StopReading&) {
    }
  }

  void parse_text(const std::string& text, const std::string& file) {
    std::istringstream in(text);
    parse_stream(in, file);
  }

  void parse_file(const std::string& path, const std::string& from_file, uint32_t from_line) {
    std::error_code ec;
    std::filesystem::path canon = std::filesystem::weakly_canonical(path, ec);
    const std::string key = ec ? path : canon.string();
    const std::string where = from_file.empty() ? "" : from_file + ":" + std::to_string(from_line) + ": ";
    for (const std::string& open : stack_) {
      if (open == key) {
        std::string chain;
        for (const std::string& s : stack_) chain += s + " -> ";
        throw ConfError(where + "Include loop: " + chain + key);
      }
    }
    if (stack_.size() >= kMaxIncludeDepth)
      throw ConfError(where + "Include nested deeper than " + std::to_string(kMaxIncludeDepth) + " files at '" +
                      path + "'");
    std::error_code dir_ec;
    const auto st = std::filesystem::status(path, dir_ec);
    if (std::filesystem::is_directory(st))
      throw ConfError(where + "cannot read conf file '" + path + "': is a directory");
    // An Include target must be a regular file (not /dev/zero, a FIFO or a
    // socket: reading one could block forever or never end).
    if (!from_file.empty() && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st))
      throw ConfError(where + "cannot read conf file '" + path + "': not a regular file");
    std::ifstream in(path);
    if (!in) {
      const int err = errno;
      throw ConfError(where + "cannot open conf file '" + path + "': " + std::strerror(err ? err : ENOENT));
    }
    stack_.push_back(key);
    parse_stream(in, path);
    stack_.pop_back();
  }

 private:
  void parse_stream(std::istream& in, const std::string& file) {
    std::string physical, logical;
    uint32_t lineno = 0, first_line = 0;
    bool continuing = false;
    for (;;) {
      const Got got = bounded_getline(in, physical, kMaxLineBytes);
      if (got == Got::Eof) break;
      ++lineno;
      if (lineno == 1 && physical.compare(0, 3, "\xEF\xBB\xBF") == 0) physical.erase(0, 3);  // a UTF-8 BOM
      if (got == Got::TooLong)
        stop(at(file, lineno) + "line longer than " + std::to_string(kMaxLineBytes / 1024) + " KiB: '" +
             clip(physical) + "'");
      total_ += physical.size() + 1;
      if (total_ > kMaxTotalBytes)
        stop(at(file, lineno) + "configuration larger than " + std::to_string(kMaxTotalBytes / (1024 * 1024)) +
             " MiB (all included files together)");
      if (!physical.empty() && physical.back() == '\r') physical.pop_back();
      if (!continuing) {
        logical.clear();
        first_line = lineno;
      }
      // As Slurm: an odd number of '\' ending the line (blanks after them
      // allowed) continues it; the next line is joined with nothing between.
      if (const size_t cut = continuation_cut(physical); cut != std::string::npos) {
        logical.append(physical, 0, cut);
        continuing = true;
        if (logical.size() > kMaxLineBytes)
          stop(at(file, first_line) + "line (with continuations) longer than " +
               std::to_string(kMaxLineBytes / 1024) + " KiB: '" + clip(logical) + "'");
        continue;
      }
      logical += physical;
      continuing = false;
      if (logical.size() > kMaxLineBytes)
        stop(at(file, first_line) + "line (with continuations) longer than " +
             std::to_string(kMaxLineBytes / 1024) + " KiB: '" + clip(logical) + "'");
      checked_line(logical, file, first_line);
    }
    if (continuing) checked_line(logical, file, first_line);  // '\' on the last line: harmless
  }

  // A bound was hit: record why and stop reading altogether.
  [[noreturn]] void stop(const std::string& msg) {
    errors_.push_back(msg);
    throw StopReading{};
  }

  // One logical line; its error (the first one on it) is collected and
  // reading goes on with the next line.
  void checked_line(const std::string& line, const std::string& file, uint32_t lineno) {
    try {
      parse_line(line, file, lineno);
    } catch (const ConfError& e) {
      errors_.push_back(e.what());
    }
  }

  // Where a continued line's text ends (before its odd run of trailing
  // '\'), or npos when the line does not continue.
  static size_t continuation_cut(const std::string& line) {
    if (ends_in_comment(line)) return std::string::npos;
    size_t e = line.size();
    while (e > 0 && (line[e - 1] == ' ' || line[e - 1] == '\t')) --e;
    size_t b = e;
    while (b > 0 && line[b - 1] == '\\') --b;
    if ((e - b) % 2 == 0) return std::string::npos;
    return e - 1;
  }

  // True when the '\' at the end of `line` sits inside a comment.
  static bool ends_in_comment(const std::string& line) {
    char quote = 0;
    for (size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (quote) {
        if (c == quote) quote = 0;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '\\' && i + 1 < line.size() && line[i + 1] == '#') {
        ++i;
      } else if (c == '#') {
        return true;
      }
    }
    return false;
  }

  static std::string at(const std::string& file, uint32_t line) { return file + ":" + std::to_string(line) + ": "; }

  std::vector<Word> split(const std::string& line, const std::string& file, uint32_t lineno) {
    std::vector<Word> words;
    size_t i = 0;
    const size_t n = line.size();
    while (i < n) {
      while (i < n && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      if (i >= n || line[i] == '#') break;
      Word w;
      const size_t start = i;
      bool value_started = false;  // something (even "") followed the '='
      while (i < n && line[i] != '#') {
        const char c = line[i];
        if (std::isspace(static_cast<unsigned char>(c))) {
          // Slurm allows blanks around '=': "UsePam = 1", "MailProg= /x".
          size_t j = i;
          while (j < n && std::isspace(static_cast<unsigned char>(line[j]))) ++j;
          if (!w.has_eq && !w.key.empty() && j < n && line[j] == '=') {
            i = j;
            continue;
          }
          if (w.has_eq && !value_started && j < n && line[j] != '#') {
            i = j;
            continue;
          }
          break;
        }
        if (w.has_eq) value_started = true;
        std::string& dst = w.has_eq ? w.value : w.key;
        if (c == '"' || c == '\'') {
          const size_t close = line.find(c, i + 1);
          if (close == std::string::npos)
            throw ConfError(at(file, lineno) + "unterminated " + (c == '"' ? "double" : "single") +
                            " quote in '" + clip(line.substr(start)) + "'");
          if (!w.has_eq) w.key_quoted = true;
          dst.append(line, i + 1, close - i - 1);
          i = close + 1;
        } else if (c == '\\' && i + 1 < n && line[i + 1] == '#') {
          dst += '#';
          i += 2;
        } else if (c == '=' && !w.has_eq) {
          w.has_eq = true;
          value_started = false;
          ++i;
        } else {
          dst += c;
          ++i;
        }
      }
      w.raw = line.substr(start, i - start);
      words.push_back(std::move(w));
    }
    return words;
  }

  void parse_line(const std::string& line, const std::string& file, uint32_t lineno) {
    std::vector<Word> words = split(line, file, lineno);
    if (words.empty()) return;
    if (!words[0].has_eq && !words[0].key_quoted && iequals(words[0].key, "include")) {
      if (words.size() != 2 || words[1].has_eq)
        throw ConfError(at(file, lineno) + "Include takes exactly one file name");
      include(words[1].key, file, lineno);
      return;
    }
    for (Word& w : words) {
      if (!w.has_eq) throw ConfError(at(file, lineno) + "expected Key=Value, found '" + clip(w.raw) + "'");
      if (w.key.empty()) throw ConfError(at(file, lineno) + "missing key before '=' in '" + clip(w.raw) + "'");
      if (w.key_quoted) throw ConfError(at(file, lineno) + "a key may not be quoted: '" + clip(w.raw) + "'");
      for (char c : w.key)
        if (!is_key_char(c))
          throw ConfError(at(file, lineno) + "invalid character '" + clip(std::string(1, c)) + "' in key '" + clip(w.key) + "'");
      out_->push_back(ConfPair{std::move(w.key), std::move(w.value), file, lineno});
    }
  }

  void include(const std::string& written, const std::string& file, uint32_t lineno) {
    if (written.empty()) throw ConfError(at(file, lineno) + "Include takes exactly one file name");
    // As Slurm: each "%c" stands for the ClusterName set so far, lower-cased.
    std::string target;
    for (size_t i = 0; i < written.size(); ++i) {
      if (written[i] == '%' && i + 1 < written.size() && written[i + 1] == 'c') {
        const ConfPair* cluster = nullptr;
        for (const ConfPair& p : *out_)
          if (iequals(p.key, "ClusterName")) cluster = &p;
        if (!cluster || cluster->value.empty())
          throw ConfError(at(file, lineno) + "Include '" + clip(written) +
                          "': %c stands for ClusterName, which is not set before this line");
        target += lower(cluster->value);
        ++i;
      } else {
        target += written[i];
      }
    }
    std::filesystem::path p(target);
    if (p.is_relative()) {
      std::filesystem::path dir = std::filesystem::path(file).parent_path();
      p = dir / p;
    }
    parse_file(p.string(), file, lineno);
  }

  std::vector<ConfPair>* out_;
  std::vector<std::string> errors_;  // every error so far, in reading order
  std::vector<std::string> stack_;  // files being read, outermost first
  size_t total_ = 0;                // bytes read so far, all files
};

Conf Conf::load(const std::string& path) {
  Conf conf;
  Parser parser(&conf.pairs_);
  parser.run_file(path);
  parser.finish();
  return conf;
}

Conf Conf::parse(const std::string& text, const std::string& file) {
  Conf conf;
  Parser parser(&conf.pairs_);
  parser.run_text(text, file);
  parser.finish();
  return conf;
}

const ConfPair* Conf::find(const std::string& key) const {
  for (auto it = pairs_.rbegin(); it != pairs_.rend(); ++it)
    if (iequals(it->key, key)) return &*it;
  return nullptr;
}

namespace {
// `value` of `p`, trimmed; relative paths against the directory of p's file.
std::string path_of(const ConfPair& p) {
  std::string loc = trim_space(p.value);
  if (loc.empty()) throw ConfigError(p.file + ":" + std::to_string(p.line) + ": " + p.key + ": empty path");
  if (is_server_store(loc)) return loc;  // a PostgreSQL URI (store_loc.hpp): no directory joined to it
  if (loc[0] != '/') {
    const size_t slash = p.file.rfind('/');
    if (slash != std::string::npos) loc = p.file.substr(0, slash + 1) + loc;
  }
  return loc;
}

const ConfPair* last_pair(const std::vector<ConfPair>& pairs, const char* key) {
  const ConfPair* p = nullptr;
  for (const ConfPair& c : pairs)
    if (iequals(c.key, key)) p = &c;
  return p;
}
}  // namespace

std::string store_cluster(const std::vector<ConfPair>& pairs) {
  const ConfPair* p = last_pair(pairs, "ClusterName");
  return p ? lower(trim_space(p->value)) : std::string();
}

bool store_location_given(const std::vector<ConfPair>& pairs) {
  return last_pair(pairs, "AccountingStorageLoc") != nullptr;
}

std::string store_location(const std::vector<ConfPair>& pairs, std::string* origin) {
  if (const ConfPair* p = last_pair(pairs, "AccountingStorageLoc")) {
    if (origin) *origin = p->file + ":" + std::to_string(p->line);
    return path_of(*p);
  }
  if (const ConfPair* p = last_pair(pairs, "StateSaveLocation")) {
    std::string dir = path_of(*p);
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    if (origin)
      *origin = std::string("default: no AccountingStorageLoc, so ") + kDefaultStoreName +
                " in StateSaveLocation (" + p->file + ":" + std::to_string(p->line) + ")";
    return dir + (dir == "/" ? "" : "/") + kDefaultStoreName;
  }
  if (pairs.empty()) return std::string();
  const std::string& file = pairs.front().file;
  // Only beside a real file: a host that names no file ("(conf)") or a
  // made-up one gets no default (never a store in the working directory).
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) return std::string();
  if (origin)
    *origin = std::string("default: no AccountingStorageLoc or StateSaveLocation, so ") + kDefaultStoreName +
              " beside " + file;
  const size_t slash = file.rfind('/');
  return (slash == std::string::npos ? std::string() : file.substr(0, slash + 1)) + kDefaultStoreName;
}

void ConfErrors::add(const std::string& msg) {
  // A message may itself hold several lines (a ConfError thrown by a reader
  // that collects): each is one error.
  size_t pos = 0;
  while (pos <= msg.size()) {
    size_t nl = msg.find('\n', pos);
    if (nl == std::string::npos) nl = msg.size();
    std::string one = msg.substr(pos, nl - pos);
    if (!one.empty() && std::find(items_.begin(), items_.end(), one) == items_.end())
      items_.push_back(std::move(one));
    pos = nl + 1;
  }
}

std::string ConfErrors::joined() const {
  std::string all;
  for (const std::string& e : items_) all += (all.empty() ? "" : "\n") + e;
  return all;
}

void ConfErrors::sort_by_position() {
  struct Key {
    size_t file = SIZE_MAX;
    unsigned long line = 0;
  };
  std::vector<std::string> files;
  auto key_of = [&](const std::string& m) {
    Key k;
    // "file:line: ..." - the first ":<digits>: " ends the file name.
    for (size_t c = m.find(':'); c != std::string::npos; c = m.find(':', c + 1)) {
      size_t d = c + 1;
      while (d < m.size() && std::isdigit(static_cast<unsigned char>(m[d]))) ++d;
      if (d > c + 1 && d + 1 < m.size() && m[d] == ':' && m[d + 1] == ' ') {
        const std::string file = m.substr(0, c);
        auto it = std::find(files.begin(), files.end(), file);
        k.file = static_cast<size_t>(it - files.begin());
        if (it == files.end()) files.push_back(file);
        k.line = std::strtoul(m.c_str() + c + 1, nullptr, 10);
        break;
      }
    }
    return k;
  };
  std::vector<std::pair<Key, std::string>> keyed;
  for (std::string& m : items_) keyed.emplace_back(key_of(m), std::move(m));
  stable_order(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
    return a.first.file != b.first.file ? a.first.file < b.first.file : a.first.line < b.first.line;
  });
  items_.clear();
  for (auto& k : keyed) items_.push_back(std::move(k.second));
}

void ConfErrors::throw_if_any() const {
  if (!items_.empty()) throw ConfError(joined());
}

}  // namespace mfprio
