// Running the binary from a test (every end-to-end suite): run
// build/a2a3sim as a subprocess (fork/exec with an argv vector, never a
// shell string), capture stdout, stderr and the exit status separately, and
// read its --json output with yajl's tree parser.
#ifndef A2_TESTS_SUPPORT_RUN_CLI_H
#define A2_TESTS_SUPPORT_RUN_CLI_H

#include <gtest/gtest.h>
#include <yajl/yajl_tree.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace a2test {

// What one run of the binary produced.
struct CliResult {
  int exit_code = -1;      // exit status; -1 when the process did not exit normally
  int term_signal = 0;     // the signal that ended it, 0 when it exited
  bool timed_out = false;  // killed after the time limit
  std::string out;         // everything written to stdout
  std::string err;         // everything written to stderr
  std::string command;     // the argv, printable, for failure messages
};

// Runs A2_BINARY with `args` (argv[1..]) and waits for it, at most
// `timeout_s` seconds (six times that in the sanitizer build, whose binary
// is that much slower; then it is killed and timed_out is set). The child
// gets /dev/null as stdin and inherits the working directory.
CliResult RunCli(const std::vector<std::string> &args, int timeout_s = 60);
// Resource limits for the child (0 = none): address_space_bytes is its
// RLIMIT_AS, for running out of memory on purpose (not under
// AddressSanitizer, whose shadow memory needs terabytes of it); file_bytes is
// its RLIMIT_FSIZE with SIGXFSZ ignored, so that a write past it fails with
// EFBIG as on a full disk.
struct CliLimits {
  uint64_t address_space_bytes = 0;
  uint64_t file_bytes = 0;
};
// RunCli with limits.
CliResult RunCliLimited(const std::vector<std::string> &args, const CliLimits &limits,
                        int timeout_s = 60);

// Streams a result for failure messages: command, status, stderr and the
// start of stdout.
std::ostream &operator<<(std::ostream &os, const CliResult &r);

// A read-only view of one value of a parsed JSON tree, addressed by a path
// such as "per_rank[2].remote_read_bytes". Looking up a missing key or
// reading a value as the wrong type records a non-fatal test failure naming
// the path, and yields a null view / a sentinel value, so a typo or a renamed
// key cannot pass silently.
class JsonView {
 public:
  JsonView(yajl_val v, std::string path) : v_(v), path_(std::move(path)) {}

  JsonView operator[](const char *key) const;
  JsonView operator[](size_t index) const;

  bool exists() const { return v_ != nullptr; }
  bool is_null() const { return v_ != nullptr && YAJL_IS_NULL(v_); }
  const std::string &path() const { return path_; }
  yajl_val raw() const { return v_; }

  // An integer (no fraction, no exponent); -1 on failure.
  long long Int() const;
  // Any number; NaN on failure.
  double Num() const;
  // The number as printed (e.g. "196608.000"); "" on failure.
  std::string NumText() const;
  bool Bool() const;
  std::string Str() const;
  // Length of an array; 0 on failure.
  size_t Size() const;

 private:
  yajl_val v_;
  std::string path_;
};

// A parsed JSON document (owns the yajl tree).
class JsonDoc {
 public:
  JsonDoc() = default;
  // Parses text; on error root() is null and error() says why.
  static JsonDoc Parse(const std::string &text);

  bool ok() const { return root_ != nullptr; }
  const std::string &error() const { return error_; }
  JsonView root() const { return JsonView(root_.get(), "$"); }
  JsonView operator[](const char *key) const { return root()[key]; }

 private:
  struct Free {
    void operator()(yajl_val v) const { yajl_tree_free(v); }
  };
  std::unique_ptr<std::remove_pointer<yajl_val>::type, Free> root_;
  std::string error_;
};

// Every number and boolean leaf of a JSON value, by path, as printed
// (numbers) or "true"/"false": for comparing two outputs number by number.
std::map<std::string, std::string> JsonScalars(const JsonView &v);

// Runs `args` + "--json", expects exit 0, empty stderr and a parseable JSON
// object on stdout; *doc receives it. *result (if given) receives the run.
::testing::AssertionResult RunJson(const std::vector<std::string> &args, JsonDoc *doc,
                                   CliResult *result = nullptr);

// Runs `args` and expects a usage error: exit 2, nothing on stdout, and a
// stderr of one line (docs/cli.md) that starts with "a2a3sim: " and contains
// every string of `needles`.
::testing::AssertionResult RunFailsWithUsage(const std::vector<std::string> &args,
                                             const std::vector<std::string> &needles);

// A fresh directory under $TMPDIR (or /tmp), removed with its contents when
// the object goes away.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  const std::string &path() const { return path_; }
  // Writes `content` to path()/name and returns the file's full path.
  std::string Write(const std::string &name, const std::string &content) const;

 private:
  std::string path_;
};

// The flags of the uncontended configuration, in which every resource but
// the links is so fast that the closed form is exact (docs/timing-model.md).
const std::vector<std::string> &UncontendedFlags();

// Concatenates argument lists.
std::vector<std::string> Args(std::vector<std::string> a, const std::vector<std::string> &b);

}  // namespace a2test

#endif
