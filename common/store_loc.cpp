// store_loc.cpp - see store_loc.hpp.
#include "store_loc.hpp"

#include "strings.hpp"

namespace mfprio {

bool is_server_store(std::string_view loc) {
  for (std::string_view scheme : {std::string_view("postgresql://"), std::string_view("postgres://")})
    if (loc.size() >= scheme.size() && iequals(loc.substr(0, scheme.size()), scheme)) return true;
  return false;
}

std::string store_location_shown(std::string_view loc) {
  if (!is_server_store(loc)) return std::string(loc);
  const size_t scheme_end = loc.find("://") + 3;
  const size_t query = loc.find('?', scheme_end);
  std::string_view authority_path = loc.substr(scheme_end, query == std::string_view::npos ? loc.npos : query - scheme_end);
  std::string out(loc.substr(0, scheme_end));
  // user:password@host: the password is what follows the first ':' of the
  // userinfo (the part before the last '@' ahead of the path).
  const size_t slash = authority_path.find('/');
  const std::string_view authority = authority_path.substr(0, slash);
  const size_t at = authority.rfind('@');
  if (at != std::string_view::npos) {
    const std::string_view userinfo = authority.substr(0, at);
    out += userinfo.substr(0, userinfo.find(':'));
    out += authority.substr(at);
  } else {
    out += authority;
  }
  if (slash != std::string_view::npos) out += authority_path.substr(slash);
  if (query == std::string_view::npos) return out;
  // Query parameters: every password=... dropped.
  std::string_view rest = loc.substr(query + 1);
  std::string kept;
  while (true) {
    const size_t amp = rest.find('&');
    const std::string_view param = rest.substr(0, amp);
    const size_t eq = param.find('=');
    if (!param.empty() && !iequals(trim_space(std::string(param.substr(0, eq))), "password")) {
      kept += kept.empty() ? "" : "&";
      kept += param;
    }
    if (amp == std::string_view::npos) break;
    rest = rest.substr(amp + 1);
  }
  if (!kept.empty()) out += "?" + kept;
  return out;
}

}  // namespace mfprio
