// Helpers of the diagnosis tests (races, deadlocks, timeouts, timelines,
// utilisation): paths of the example traces, finding a marked line in a
// program file, and parsing the race report a run prints on stderr
// (docs/output.md "Races and deadlocks").
#ifndef A2_TESTS_DIAGNOSE_DIAG_UTIL_H
#define A2_TESTS_DIAGNOSE_DIAG_UTIL_H

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/files.h"
#include "tests/support/run_cli.h"

namespace a2test {
namespace diag {

// Absolute path of a file of the source tree.
inline std::string Src(const std::string &rel) {
  return std::string(A2_SOURCE_DIR) + "/" + rel;
}

inline std::string Pitfall(const std::string &name) {
  return Src("traces/examples/pitfalls/" + name + ".a2t");
}

using a2test::Lines;
using a2test::ReadFileOrFail;

// The 1-based number of the only line of `text` that contains `needle`;
// 0 (and a test failure) when no line or more than one does, so a test can
// never silently compare against a stale number.
inline int LineOf(const std::string &text, const std::string &needle) {
  std::vector<std::string> lines = Lines(text);
  int found = 0;
  for (size_t i = 0; i < lines.size(); i++) {
    if (lines[i].find(needle) == std::string::npos) continue;
    if (found) {
      ADD_FAILURE() << "more than one line contains '" << needle << "' (lines " << found << " and "
                    << i + 1 << ")";
      return 0;
    }
    found = (int)i + 1;
  }
  if (!found) ADD_FAILURE() << "no line contains '" << needle << "'";
  return found;
}

// One side of a reported race.
struct Access {
  std::string kind;    // "read", "write" or "atomic" (an atomic add)
  bool write = false;  // a write or an atomic add
  int rank = -1, core = -1;
  std::string where;  // "line" (program files) or "step" (built-ins)
  int line = -1;
  std::string op;  // the instruction: "store", "remote_store atomic_add", ...
};

// One "race on BUF@rankR bytes [LO, HI)" block.
struct Race {
  std::string buf;
  int owner = -1;
  uint64_t lo = 0, hi = 0;
  Access a, b;
  const Access *Read() const { return !a.write ? &a : !b.write ? &b : nullptr; }
  const Access *Write() const { return a.write ? &a : b.write ? &b : nullptr; }
};

struct RaceReport {
  bool parsed = false;          // the header line was found
  long long header_count = -1;  // N of "N data race(s)"
  std::vector<Race> shown;
  long long more = 0;                 // "... and K more racing pairs"
  std::vector<std::string> unparsed;  // lines that fit no known shape
};

inline RaceReport ParseRaces(const std::string &err) {
  static const std::regex header(
      R"(^a2a3sim: .*: (\d+) data race\(s\) \(accesses no notify/wait orders\):$)");
  static const std::regex block(
      R"(^race on (\w+)@rank(\d+) bytes \[(\d+), (\d+)\): no notify/wait orders$)");
  static const std::regex access(
      R"(^    (read |write|atomic) by rank (\d+) core (\d+), (line|step) (\d+) \((\w+(?: atomic_add)?)\), dispatched at \d+\.\d{3} ns$)");
  static const std::regex more(R"(^\.\.\. and (\d+) more racing pairs$)");
  RaceReport r;
  std::vector<std::string> lines = Lines(err);
  for (size_t i = 0; i < lines.size(); i++) {
    std::smatch m;
    if (std::regex_match(lines[i], m, header)) {
      r.parsed = true;
      r.header_count = std::stoll(m[1]);
    } else if (std::regex_match(lines[i], m, block)) {
      Race race;
      race.buf = m[1];
      race.owner = std::stoi(m[2]);
      race.lo = std::stoull(m[3]);
      race.hi = std::stoull(m[4]);
      Access *sides[2] = {&race.a, &race.b};
      bool ok = true;
      for (int s = 0; s < 2; s++) {
        std::smatch am;
        if (i + 1 >= lines.size() || !std::regex_match(lines[i + 1], am, access)) {
          ok = false;
          break;
        }
        i++;
        sides[s]->kind = am[1] == "read " ? "read" : am[1].str();
        sides[s]->write = sides[s]->kind != "read";
        sides[s]->rank = std::stoi(am[2]);
        sides[s]->core = std::stoi(am[3]);
        sides[s]->where = am[4];
        sides[s]->line = std::stoi(am[5]);
        sides[s]->op = am[6];
      }
      if (ok)
        r.shown.push_back(race);
      else
        r.unparsed.push_back(lines[i]);
    } else if (std::regex_match(lines[i], m, more)) {
      r.more = std::stoll(m[1]);
    } else {
      r.unparsed.push_back(lines[i]);
    }
  }
  return r;
}

}  // namespace diag
}  // namespace a2test

#endif
