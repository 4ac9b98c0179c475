// Helpers for the trace-format tests: load a text for P ranks into a program
// that frees itself, and check an error's position and message.
#ifndef A2_TESTS_TRACE_UTIL_H
#define A2_TESTS_TRACE_UTIL_H

#include <gtest/gtest.h>

#include <string>

#include "traces/program.h"
#include "traces/text.h"

namespace a2test {

// One instruction on every rank, to append to declarations under test: a
// file that gives no rank an instruction is refused.
inline const char kWork[] = "program\n  compute 1\nend\n";

// A loaded trace (or the error loading it). Not copyable: owns the program.
class Trace {
 public:
  Trace(const std::string &text, uint32_t nranks, const char *name = "t.a2t") {
    rc_ = a2_program_load_string(text.c_str(), name, nranks, &k_, &e_);
  }
  ~Trace() { a2_program_free(&k_); }
  Trace(const Trace &) = delete;
  Trace &operator=(const Trace &) = delete;

  bool ok() const { return rc_ == A2_OK; }
  a2_code rc() const { return rc_; }
  const a2_program &k() const { return k_; }
  const a2_err &err() const { return e_; }
  std::string Message() const {
    char buf[1024];
    a2_err_format(&e_, buf, sizeof buf);
    return buf;
  }
  const a2_instrs &prog(uint32_t rank, uint32_t core = 0) const {
    return k_.progs[rank * k_.ncores + core];
  }

 private:
  a2_program k_{};
  a2_err e_{};
  a2_code rc_;
};

// Expects `text` at P ranks to fail at line:col with a message containing sub.
inline ::testing::AssertionResult FailsAt(const std::string &text, uint32_t nranks, int line,
                                          int col, const std::string &sub) {
  Trace t(text, nranks);
  if (t.ok()) return ::testing::AssertionFailure() << "loaded without error:\n" << text;
  const a2_err &e = t.err();
  if (e.line != line || e.col != col || std::string(e.msg).find(sub) == std::string::npos)
    return ::testing::AssertionFailure()
           << "got " << t.Message() << "\nwant " << line << ":" << col << " and '" << sub << "'";
  if (std::string(e.file) != "t.a2t")
    return ::testing::AssertionFailure() << "error names file '" << e.file << "'";
  return ::testing::AssertionSuccess();
}

}  // namespace a2test

#endif
