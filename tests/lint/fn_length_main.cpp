// fn_length_main.cpp - fails on a shipped function over the line limit.
//
//   fn_length [--max N] [--allow FILE] [--list] --root DIR SUBDIR...
//
// Reads every .c/.cpp/.h/.hpp file below ROOT/SUBDIR, finds the function
// bodies (fn_length.hpp) and prints `path:line: name: N lines (limit M)` for
// each longer than N (default 150) that the allow-list does not name.  The
// allow-list (see long_functions.allow) names `path name` pairs, one a line,
// `#` comments; an entry that names no function over the limit any more is an
// error too (the list only shrinks).  --list prints every function found.
// Exit 0 when nothing is over, 1 when something is, 2 on a usage or read error.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "fn_length.hpp"

namespace fs = std::filesystem;

namespace {

struct Allowed {
  std::string path, name;
  int line = 0;  // in the allow-list
  bool used = false;
};

bool read_file(const fs::path& p, std::string* out) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

bool read_allow(const std::string& file, std::vector<Allowed>* out) {
  std::string text;
  if (!read_file(file, &text)) {
    std::cerr << "fn_length: " << file << ": cannot read\n";
    return false;
  }
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    Allowed a;
    a.line = n;
    std::string extra;
    if (!(words >> a.path)) continue;
    if (!(words >> a.name) || (words >> extra)) {
      std::cerr << "fn_length: " << file << ":" << n << ": expected `path function`\n";
      return false;
    }
    out->push_back(a);
  }
  return true;
}

bool source_file(const fs::path& p) {
  const std::string e = p.extension().string();
  return e == ".c" || e == ".cpp" || e == ".h" || e == ".hpp";
}

}  // namespace

int main(int argc, char** argv) {
  int max = 150;
  std::string allow_file, root;
  bool list = false;
  std::vector<std::string> dirs;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--max" && i + 1 < argc) {
      max = std::atoi(argv[++i]);
    } else if (a == "--allow" && i + 1 < argc) {
      allow_file = argv[++i];
    } else if (a == "--root" && i + 1 < argc) {
      root = argv[++i];
    } else if (a == "--list") {
      list = true;
    } else if (!a.empty() && a[0] != '-') {
      dirs.push_back(a);
    } else {
      std::cerr << "usage: fn_length [--max N] [--allow FILE] [--list] --root DIR SUBDIR...\n";
      return 2;
    }
  }
  if (root.empty() || dirs.empty() || max <= 0) {
    std::cerr << "usage: fn_length [--max N] [--allow FILE] [--list] --root DIR SUBDIR...\n";
    return 2;
  }
  std::vector<Allowed> allowed;
  if (!allow_file.empty() && !read_allow(allow_file, &allowed)) return 2;

  std::vector<std::string> files;
  for (const std::string& d : dirs) {
    const fs::path base = fs::path(root) / d;
    std::error_code ec;
    if (!fs::is_directory(base, ec)) {
      std::cerr << "fn_length: " << base.string() << ": not a directory\n";
      return 2;
    }
    for (auto it = fs::recursive_directory_iterator(base, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (it->is_regular_file() && source_file(it->path()))
        files.push_back(fs::relative(it->path(), root).generic_string());
  }
  std::sort(files.begin(), files.end());

  int over = 0, bad = 0;
  for (const std::string& f : files) {
    std::string text, error;
    if (!read_file(fs::path(root) / f, &text)) {
      std::cerr << "fn_length: " << f << ": cannot read\n";
      return 2;
    }
    for (const auto& fn : mfprio::lint::functions(text, &error)) {
      if (list) std::cout << f << ":" << fn.line << ": " << fn.name << ": " << fn.lines << "\n";
      if (fn.lines <= max) continue;
      auto hit = std::find_if(allowed.begin(), allowed.end(),
                              [&](const Allowed& a) { return a.path == f && a.name == fn.name; });
      if (hit != allowed.end()) {
        hit->used = true;
        continue;
      }
      std::cerr << f << ":" << fn.line << ": " << fn.name << ": " << fn.lines << " lines (limit " << max
                << "): split it by what each part does\n";
      ++over;
    }
    if (!error.empty()) {
      std::cerr << f << ":" << error << " (braces do not balance: the checker cannot read this file)\n";
      ++bad;
    }
  }
  for (const Allowed& a : allowed)
    if (!a.used) {
      std::cerr << allow_file << ":" << a.line << ": " << a.path << " " << a.name
                << ": no function of that name over " << max << " lines any more: remove the entry\n";
      ++over;
    }
  if (over + bad) std::cerr << "fn_length: " << over + bad << " problem(s) in " << files.size() << " files\n";
  return over + bad ? 1 : 0;
}
