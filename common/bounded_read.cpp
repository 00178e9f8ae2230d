// bounded_read.cpp - see bounded_read.hpp.
#include "bounded_read.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace mfprio {
namespace {

std::string bound_of(const ReadBounds& b) { return std::string(" (the bound for ") + b.what + ")"; }

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string bound_words(uint64_t bytes) {
  const char* units[] = {"GiB", "MiB", "KiB"};
  const int shifts[] = {30, 20, 10};
  for (int i = 0; i < 3; ++i)
    if (bytes >= (1ull << shifts[i]) && bytes % (1ull << shifts[i]) == 0)
      return std::to_string(bytes >> shifts[i]) + " " + units[i];
  return std::to_string(bytes) + " bytes";
}

void check_line_bound(const std::string& file, uint64_t line, uint64_t len, const ReadBounds& b) {
  if (len > b.max_line)
    throw ReadError(file + ":" + std::to_string(line) + ": line longer than " + bound_words(b.max_line) +
                    bound_of(b));
}

void check_total_bound(const std::string& file, uint64_t total, const ReadBounds& b) {
  if (total > b.max_bytes) throw ReadError(file + ": larger than " + bound_words(b.max_bytes) + bound_of(b));
}

bool strip_utf8_bom(std::string& text) {
  if (text.size() < 3 || text.compare(0, 3, "\xEF\xBB\xBF") != 0) return false;
  text.erase(0, 3);
  return true;
}

std::string read_bounded(const std::string& path, const ReadBounds& b) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (f.fd < 0) throw ReadError(path + ": cannot read: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) throw ReadError(path + ": cannot read: " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw ReadError(path + ": cannot read: is a directory");
  if (!S_ISREG(st.st_mode)) throw ReadError(path + ": cannot read: not a regular file");
  check_total_bound(path, static_cast<uint64_t>(st.st_size), b);
  std::string text;
  text.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(f.fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw ReadError(path + ": cannot read: " + std::strerror(errno));
    }
    if (n == 0) break;
    check_total_bound(path, text.size() + static_cast<uint64_t>(n), b);  // grew after the stat
    text.append(buf, static_cast<size_t>(n));
  }
  uint64_t line = 1;
  size_t start = 0;
  for (;;) {
    const size_t nl = text.find('\n', start);
    const size_t end = nl == std::string::npos ? text.size() : nl;
    check_line_bound(path, line, end - start, b);
    if (nl == std::string::npos) break;
    start = nl + 1;
    ++line;
  }
  strip_utf8_bom(text);
  return text;
}

}  // namespace mfprio
