// simulate_map.cpp - see simulate_map.hpp.
#include "simulate_map.hpp"

#include <sstream>
#include <stdexcept>
#include <vector>

namespace mfprio::host {

SimMap parse_sim_map(const std::string& text, const std::string& file) {
  SimMap m;
  m.file = file;
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string x; words >> x;) w.push_back(x);
    if (w.empty()) continue;
    const std::string where = file + ":" + std::to_string(n) + ": ";
    if (w.size() != 3) throw std::runtime_error(where + "expected KIND TRACE SITE, got " + std::to_string(w.size()) + " words");
    std::map<std::string, std::string>* pairs = nullptr;
    std::string* any = nullptr;
    if (w[0] == "user") pairs = &m.users, any = &m.any_user;
    else if (w[0] == "account" || w[0] == "group") pairs = &m.accounts, any = &m.any_account;
    else if (w[0] == "partition" || w[0] == "queue" || w[0] == "class") pairs = &m.partitions, any = &m.any_partition;
    else throw std::runtime_error(where + "'" + w[0] + "' is not user, account, group, partition, queue or class");
    if (w[1] == "*") {
      if (!any->empty()) throw std::runtime_error(where + w[0] + " * is given twice");
      *any = w[2];
    } else if (!pairs->emplace(w[1], w[2]).second) {
      throw std::runtime_error(where + w[0] + " '" + w[1] + "' is given twice");
    }
  }
  return m;
}

}  // namespace mfprio::host
