// Helpers of the `a2a3sim calibrate` tests: measurements CSVs written into
// a temporary directory, and measured figures taken from the simulator
// itself (so that a fit has a known answer).
#ifndef A2_TESTS_CALIBRATE_CALIBRATE_UTIL_H
#define A2_TESTS_CALIBRATE_CALIBRATE_UTIL_H

#include <string>
#include <vector>

#include "tests/support/files.h"
#include "tests/support/run_cli.h"

namespace a2test {

inline const char *CsvHeader() {
  return "row,kernel,ranks,size,args,metric,measured,tolerance,source\n";
}

// The TGET kernel (traces/fidelity/tget.a2t), by absolute path.
inline std::string TgetKernel() {
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

}  // namespace a2test

#endif
