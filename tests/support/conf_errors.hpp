// conf_errors.hpp - for the conf tests: the message the conf reader
// (common/conf.hpp) refuses a text or a file with.
#pragma once

#include <string>

#include "conf.hpp"

namespace mfprio::test {

// The ConfError `text`, read as `file`, is refused with, or "(no error)".
inline std::string parse_error(const std::string& text, const std::string& file = "t.conf") {
  try {
    Conf::parse(text, file);
  } catch (const ConfError& e) {
    return e.what();
  }
  return "(no error)";
}

// The ConfError loading the file at `path` gives, or "(no error)".
inline std::string load_error(const std::string& path) {
  try {
    Conf::load(path);
  } catch (const ConfError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace mfprio::test
