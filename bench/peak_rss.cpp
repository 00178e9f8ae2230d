// peak_rss.cpp - mfprio-bench-peak-rss OUT CMD [ARGS...]: runs CMD, writes its
// peak RSS (ru_maxrss of wait4, KiB) to the file OUT, exits with CMD's status.
//
// Why a launcher: Linux charges a process's peak RSS with the memory image it
// had before exec, and a child spawned by mfprio-bench (vfork or fork) starts
// as the bench's image (tens to hundreds of MB after it built the stores), so
// the bench's own wait4 would report max(bench, child).  This launcher is
// small when it forks, so the figure is the child's own peak plus this
// launcher's few hundred KiB (the same for every child; the bench subtracts
// an almost empty store's peak).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: mfprio-bench-peak-rss OUT CMD [ARGS...]\n");
    return 2;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    std::fprintf(stderr, "mfprio-bench-peak-rss: fork: %s\n", std::strerror(errno));
    return 1;
  }
  if (pid == 0) {
    execv(argv[2], argv + 2);
    std::fprintf(stderr, "mfprio-bench-peak-rss: %s: cannot start: %s\n", argv[2], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  struct rusage ru {};
  if (wait4(pid, &status, 0, &ru) != pid) {
    std::fprintf(stderr, "mfprio-bench-peak-rss: wait4: %s\n", std::strerror(errno));
    return 1;
  }
  FILE* f = std::fopen(argv[1], "w");
  if (!f || std::fprintf(f, "%ld\n", ru.ru_maxrss) < 0 || std::fclose(f) != 0) {
    std::fprintf(stderr, "mfprio-bench-peak-rss: %s: cannot write\n", argv[1]);
    return 1;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  std::fprintf(stderr, "mfprio-bench-peak-rss: %s: killed by signal %d\n", argv[2],
               WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return 1;
}
