// Helpers of the `a2a3sim sweep` tests: reading the files a sweep writes
// and splitting its CSV.
#ifndef A2_TESTS_SWEEP_SWEEP_UTIL_H
#define A2_TESTS_SWEEP_SWEEP_UTIL_H

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace a2test {

// The whole file, or "" when it cannot be read (*ok = false).
inline std::string ReadFile(const std::string &path, bool *ok = nullptr) {
  std::ifstream f(path, std::ios::binary);
  if (ok) *ok = (bool)f;
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline bool Exists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// Lines without their '\n'.
inline std::vector<std::string> Lines(const std::string &text) {
  std::vector<std::string> v;
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) v.push_back(line);
  return v;
}

// One CSV record (RFC 4180 quoting: "a,b" and "" inside quotes).
inline std::vector<std::string> CsvFields(const std::string &line) {
  std::vector<std::string> f(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); i++) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        f.back() += '"';
        i++;
      } else if (c == '"') {
        quoted = false;
      } else {
        f.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      f.emplace_back();
    } else {
      f.back() += c;
    }
  }
  return f;
}

// The file starts with the 8-byte PNG signature.
inline bool IsPng(const std::string &path) {
  static const std::string sig("\x89PNG\r\n\x1a\n", 8);
  return ReadFile(path).compare(0, 8, sig) == 0;
}

// Is gnuplot on PATH (the plots are made only then)?
inline bool HaveGnuplot() {
  const char *p = getenv("PATH");
  std::stringstream ss(p ? p : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(ss, dir, ':'))
    if (!dir.empty() && access((dir + "/gnuplot").c_str(), X_OK) == 0) return true;
  return false;
}

// The columns of sweep.csv after the --set axes.
inline const std::vector<std::string> &ResultColumns() {
  static const std::vector<std::string> c = {"time_ns",
                                             "algbw_gbps",
                                             "busbw_gbps",
                                             "remote_read_bytes_per_rank",
                                             "remote_write_bytes_per_rank",
                                             "barrier_rounds",
                                             "ok",
                                             "status",
                                             "error"};
  return c;
}

}  // namespace a2test

#endif
