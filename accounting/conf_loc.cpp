// conf_loc.cpp - see conf_loc.hpp.  Only reads; never writes anything.
#include "conf_loc.hpp"

#include <cctype>
#include <fstream>
#include <sstream>

#include "admin.hpp"

namespace mfprio::acct {

std::string storage_loc_from_text(const std::string& text, const std::string& file) {
  std::istringstream in(text);
  std::string line, found;
  size_t lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      if (i >= line.size() || line[i] == '#') break;
      size_t k0 = i;
      while (i < line.size() && line[i] != '=' && !std::isspace(static_cast<unsigned char>(line[i])))
        ++i;
      std::string key = line.substr(k0, i - k0);
      if (i >= line.size() || line[i] != '=') continue;  // a bare word (e.g. Include): skip
      ++i;
      std::string value;
      if (i < line.size() && line[i] == '"') {
        size_t close = line.find('"', i + 1);
        if (close == std::string::npos)
          throw AdminError(file + ":" + std::to_string(lineno) + ": unterminated quote");
        value = line.substr(i + 1, close - i - 1);
        i = close + 1;
      } else {
        size_t v0 = i;
        while (i < line.size() && line[i] != '#' && !std::isspace(static_cast<unsigned char>(line[i])))
          ++i;
        value = line.substr(v0, i - v0);
      }
      std::string lower;
      for (char c : key) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lower == "accountingstorageloc") {
        if (value.empty())
          throw AdminError(file + ":" + std::to_string(lineno) + ": empty AccountingStorageLoc");
        found = value;
      }
    }
  }
  if (found.empty()) throw AdminError(file + ": no AccountingStorageLoc= key");
  if (found[0] != '/') {
    size_t slash = file.rfind('/');
    if (slash != std::string::npos) found = file.substr(0, slash + 1) + found;
  }
  return found;
}

std::string storage_loc_from_conf(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw AdminError(file + ": cannot read conf file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return storage_loc_from_text(ss.str(), file);
}

}  // namespace mfprio::acct
