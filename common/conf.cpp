// conf.cpp - the slurm.conf syntax reader declared in conf.hpp.
//
// Entry points: Conf::load (a file and its includes), Conf::parse (text).
// One logical line (physical lines joined by a trailing '\') is split into
// words at unquoted blanks; an unquoted '#' ends the line.  A word must be
// Key=Value, except a first word "Include" followed by one path.  Nothing is
// interpreted here: every pair, known or not, is kept in file order.
#include "conf.hpp"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace mfprio {

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

namespace {

constexpr size_t kMaxIncludeDepth = 16;
// Bounds against `Include /dev/zero` and runaway files: one logical line
// (continuations joined) and all files of one load together.
constexpr size_t kMaxLineBytes = 64 * 1024;
constexpr size_t kMaxTotalBytes = 16 * 1024 * 1024;
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

}  // namespace

class Conf::Parser {
 public:
  explicit Parser(std::vector<ConfPair>* out) : out_(out) {}

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
      if (got == Got::TooLong)
        throw ConfError(at(file, lineno) + "line longer than " + std::to_string(kMaxLineBytes / 1024) +
                        " KiB: '" + clip(physical) + "'");
      total_ += physical.size() + 1;
      if (total_ > kMaxTotalBytes)
        throw ConfError(at(file, lineno) + "configuration larger than " +
                        std::to_string(kMaxTotalBytes / (1024 * 1024)) + " MiB (all included files together)");
      if (!physical.empty() && physical.back() == '\r') physical.pop_back();
      if (!continuing) {
        logical.clear();
        first_line = lineno;
      }
      if (!physical.empty() && physical.back() == '\\' && !ends_in_comment(physical)) {
        physical.pop_back();
        logical += physical;
        logical += ' ';
        continuing = true;
        if (logical.size() > kMaxLineBytes)
          throw ConfError(at(file, first_line) + "line (with continuations) longer than " +
                          std::to_string(kMaxLineBytes / 1024) + " KiB: '" + clip(logical) + "'");
        continue;
      }
      logical += physical;
      continuing = false;
      if (logical.size() > kMaxLineBytes)
        throw ConfError(at(file, first_line) + "line (with continuations) longer than " +
                        std::to_string(kMaxLineBytes / 1024) + " KiB: '" + clip(logical) + "'");
      parse_line(logical, file, first_line);
    }
    if (continuing) parse_line(logical, file, first_line);  // '\' on the last line: harmless
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
      while (i < n && !std::isspace(static_cast<unsigned char>(line[i])) && line[i] != '#') {
        const char c = line[i];
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

  void include(const std::string& target, const std::string& file, uint32_t lineno) {
    if (target.empty()) throw ConfError(at(file, lineno) + "Include takes exactly one file name");
    std::filesystem::path p(target);
    if (p.is_relative()) {
      std::filesystem::path dir = std::filesystem::path(file).parent_path();
      p = dir / p;
    }
    parse_file(p.string(), file, lineno);
  }

  std::vector<ConfPair>* out_;
  std::vector<std::string> stack_;  // files being read, outermost first
  size_t total_ = 0;                // bytes read so far, all files
};

Conf Conf::load(const std::string& path) {
  Conf conf;
  Parser parser(&conf.pairs_);
  parser.parse_file(path, "", 0);
  return conf;
}

Conf Conf::parse(const std::string& text, const std::string& file) {
  Conf conf;
  Parser parser(&conf.pairs_);
  parser.parse_text(text, file);
  return conf;
}

const ConfPair* Conf::find(const std::string& key) const {
  for (auto it = pairs_.rbegin(); it != pairs_.rend(); ++it)
    if (iequals(it->key, key)) return &*it;
  return nullptr;
}

std::string store_location(const std::vector<ConfPair>& pairs, std::string* origin) {
  const ConfPair* p = nullptr;
  for (const ConfPair& c : pairs)
    if (iequals(c.key, "AccountingStorageLoc")) p = &c;
  if (!p) return std::string();
  std::string loc = p->value;
  while (!loc.empty() && std::isspace(static_cast<unsigned char>(loc.back()))) loc.pop_back();
  while (!loc.empty() && std::isspace(static_cast<unsigned char>(loc.front()))) loc.erase(0, 1);
  if (origin) *origin = p->file + ":" + std::to_string(p->line);
  if (loc.empty())
    throw ConfigError(p->file + ":" + std::to_string(p->line) + ": AccountingStorageLoc: empty path");
  if (loc[0] != '/') {
    const size_t slash = p->file.rfind('/');
    if (slash != std::string::npos) loc = p->file.substr(0, slash + 1) + loc;
  }
  return loc;
}

}  // namespace mfprio
