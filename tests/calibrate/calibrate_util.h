// Helpers of the `a2a3sim calibrate` tests: measurements CSVs written into
// a temporary directory, and measured figures taken from the simulator
// itself (so that a fit has a known answer).
#ifndef A2_TESTS_CALIBRATE_CALIBRATE_UTIL_H
#define A2_TESTS_CALIBRATE_CALIBRATE_UTIL_H

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/support/files.h"
#include "tests/support/run_cli.h"

namespace a2test {

// The header without the role column: every row is a fit row.
inline const char *CsvHeader() {
  return "row,program,ranks,size,args,metric,measured,tolerance,source\n";
}

// The header with it (each row ends with ,fit or ,predict).
inline const char *CsvHeaderWithRole() {
  return "row,program,ranks,size,args,metric,measured,tolerance,source,role\n";
}

// The TGET program (traces/fidelity/tget.a2t), by absolute path.
inline std::string TgetProgram() {
  return std::string(A2_SOURCE_DIR) + "/traces/fidelity/tget.a2t";
}

// The simulated time of `run args` in ps (a test failure and 0 when it does
// not run).
inline long long SimulatedPs(const std::vector<std::string> &args) {
  JsonDoc doc;
  std::vector<std::string> a = {"run"};
  a.insert(a.end(), args.begin(), args.end());
  EXPECT_TRUE(RunJson(a, &doc));
  return doc.ok() ? doc["time_ps"].Int() : 0;
}

// The stdout line of `out` that starts with `prefix` ("" when none).
inline std::string LineStarting(const std::string &out, const std::string &prefix) {
  for (const std::string &l : Lines(out))
    if (l.rfind(prefix, 0) == 0) return l;
  return "";
}

// "300ns" or "20.5GB/s" -> base units (ps, B/s, bytes); NaN when not readable.
inline double Quantity(const std::string &s) {
  char *end;
  double v = strtod(s.c_str(), &end);
  std::string unit = end;
  if (unit == "ps" || unit == "B") return v;
  if (unit == "ns") return v * 1e3;
  if (unit == "us") return v * 1e6;
  if (unit == "MB/s") return v * 1e6;
  if (unit == "GB/s") return v * 1e9;
  if (unit == "KB") return v * 1e3;
  if (unit == "KiB") return v * 1024;
  return NAN;
}

// The fitted value of `key` in calibrate's "fitted:" lines ("  KEY: A -> B").
inline double Fitted(const std::string &out, const std::string &key) {
  std::string line = LineStarting(out, "  " + key + ": ");
  size_t arrow = line.find(" -> ");
  return arrow == std::string::npos ? NAN : Quantity(line.substr(arrow + 4));
}

}  // namespace a2test

#endif
