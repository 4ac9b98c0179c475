// Helpers of the `a2a3sim sweep` tests: splitting the CSV a sweep writes
// and checking its plots (files: tests/support/files.h).
#ifndef A2_TESTS_SWEEP_SWEEP_UTIL_H
#define A2_TESTS_SWEEP_SWEEP_UTIL_H

#include <string>
#include <vector>

#include "tests/support/files.h"

namespace a2test {

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

// The index of column `name` in a CSV header line (its size when absent).
inline size_t CsvColumn(const std::string &header, const std::string &name) {
  std::vector<std::string> h = CsvFields(header);
  size_t i = 0;
  while (i < h.size() && h[i] != name) i++;
  return i;
}

// The file starts with the 8-byte PNG signature.
inline bool IsPng(const std::string &path) {
  static const std::string sig("\x89PNG\r\n\x1a\n", 8);
  return ReadFile(path).compare(0, 8, sig) == 0;
}

// Is gnuplot on PATH (the plots are made only then)?
inline bool HaveGnuplot() {
  return OnPath("gnuplot");
}

// The columns of sweep.csv after the --set axes.
inline const std::vector<std::string> &ResultColumns() {
  static const std::vector<std::string> c = {"time_ns",
                                             "algbw_gbps",
                                             "busbw_gbps",
                                             "remote_read_bytes_per_rank",
                                             "remote_write_bytes_per_rank",
                                             "barrier_rounds",
                                             "compute_us",
                                             "comm_us",
                                             "sequential_us",
                                             "exposed_us",
                                             "overlap_eff",
                                             "tflops",
                                             "ok",
                                             "status",
                                             "error"};
  return c;
}

}  // namespace a2test

#endif
