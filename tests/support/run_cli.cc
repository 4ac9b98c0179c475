#include "tests/support/run_cli.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

namespace a2test {

namespace {

// The timeout catches a hang, not a slow run: the sanitizer build's binary
// (-O0, ASan + UBSan) runs several times slower than Release, so its
// deadline is that many times longer.
#if defined(__SANITIZE_ADDRESS__)
constexpr int64_t kTimeoutScale = 6;
#else
constexpr int64_t kTimeoutScale = 1;
#endif

int64_t NowMs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

std::string Printable(const std::vector<std::string> &argv) {
  std::string s;
  for (const std::string &a : argv) {
    if (!s.empty()) s += ' ';
    bool plain = !a.empty() && a.find_first_of(" \t\n'\"\\$`*?;&|<>()") == std::string::npos;
    if (plain) {
      s += a;
    } else {
      s += '\'';
      for (char c : a) s += c == '\'' ? std::string("'\\''") : std::string(1, c);
      s += '\'';
    }
  }
  return s;
}

}  // namespace

CliResult RunCli(const std::vector<std::string> &args, int timeout_s) {
  return RunCliLimited(args, CliLimits(), timeout_s);
}

CliResult RunCliLimited(const std::vector<std::string> &args, const CliLimits &limits,
                        int timeout_s) {
  CliResult r;
  std::vector<std::string> argv_s;
  argv_s.push_back(A2_BINARY);
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  r.command = Printable(argv_s);
  std::vector<char *> argv;
  for (std::string &a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);

  int out_p[2], err_p[2];
  if (pipe2(out_p, O_CLOEXEC)) {
    r.err = std::string("test harness: pipe2: ") + strerror(errno);
    return r;
  }
  if (pipe2(err_p, O_CLOEXEC)) {
    r.err = std::string("test harness: pipe2: ") + strerror(errno);
    close(out_p[0]);
    close(out_p[1]);
    return r;
  }
  pid_t pid = fork();
  if (pid < 0) {
    r.err = std::string("test harness: fork: ") + strerror(errno);
    close(out_p[0]);
    close(out_p[1]);
    close(err_p[0]);
    close(err_p[1]);
    return r;
  }
  if (pid == 0) {
    // Child: only async-signal-safe calls from here on.
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    dup2(out_p[1], 1);
    dup2(err_p[1], 2);
    if (limits.address_space_bytes) {
      struct rlimit rl = {limits.address_space_bytes, limits.address_space_bytes};
      if (setrlimit(RLIMIT_AS, &rl)) _exit(126);
    }
    if (limits.file_bytes) {
      struct rlimit rl = {limits.file_bytes, limits.file_bytes};
      signal(SIGXFSZ, SIG_IGN);  // kept across execv: writes fail with EFBIG instead
      if (setrlimit(RLIMIT_FSIZE, &rl)) _exit(126);
    }
    execv(argv[0], argv.data());
    static const char msg[] = "test harness: execv failed\n";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
    _exit(127);
  }
  close(out_p[1]);
  close(err_p[1]);

  // Read both pipes until both are closed, so that neither can fill up.
  struct pollfd fds[2] = {{out_p[0], POLLIN, 0}, {err_p[0], POLLIN, 0}};
  std::string *sinks[2] = {&r.out, &r.err};
  int open_fds = 2;
  const int64_t deadline = NowMs() + (int64_t)timeout_s * kTimeoutScale * 1000;
  while (open_fds > 0) {
    int64_t left = deadline - NowMs();
    if (left <= 0) {
      r.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    int n = poll(fds, 2, (int)left);
    if (n < 0) {
      if (errno == EINTR) continue;
      kill(pid, SIGKILL);
      r.err += std::string("\ntest harness: poll: ") + strerror(errno);
      break;
    }
    for (int i = 0; i < 2; i++) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[65536];
      ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        sinks[i]->append(buf, (size_t)got);
      } else if (got == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        open_fds--;
      }
    }
  }
  for (int i = 0; i < 2; i++)
    if (fds[i].fd >= 0) close(fds[i].fd);

  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.term_signal = WTERMSIG(status);
  }
  return r;
}

std::ostream &operator<<(std::ostream &os, const CliResult &r) {
  os << "\n  command: " << r.command << "\n  exit code: " << r.exit_code;
  if (r.term_signal) os << " (killed by signal " << r.term_signal << ")";
  if (r.timed_out) os << " (timed out)";
  os << "\n  stderr: " << (r.err.empty() ? "(empty)" : r.err);
  os << "\n  stdout: ";
  if (r.out.empty())
    os << "(empty)";
  else if (r.out.size() > 2000)
    os << r.out.substr(0, 2000) << "... (" << r.out.size() << " bytes)";
  else
    os << r.out;
  return os << "\n";
}

// ---- JSON ----

namespace {

const char *TypeName(yajl_val v) {
  if (!v) return "missing";
  switch (v->type) {
  case yajl_t_string: return "string";
  case yajl_t_number: return "number";
  case yajl_t_object: return "object";
  case yajl_t_array: return "array";
  case yajl_t_true: return "true";
  case yajl_t_false: return "false";
  case yajl_t_null: return "null";
  default: return "?";
  }
}

}  // namespace

JsonView JsonView::operator[](const char *key) const {
  std::string p = path_ + "." + key;
  if (!YAJL_IS_OBJECT(v_)) {
    ADD_FAILURE() << "JSON: " << path_ << " is " << TypeName(v_) << ", not an object (looking up '"
                  << key << "')";
    return JsonView(nullptr, p);
  }
  for (size_t i = 0; i < v_->u.object.len; i++)
    if (!strcmp(v_->u.object.keys[i], key)) return JsonView(v_->u.object.values[i], p);
  ADD_FAILURE() << "JSON: no key " << p;
  return JsonView(nullptr, p);
}

JsonView JsonView::operator[](size_t index) const {
  std::string p = path_ + "[" + std::to_string(index) + "]";
  if (!YAJL_IS_ARRAY(v_)) {
    ADD_FAILURE() << "JSON: " << path_ << " is " << TypeName(v_) << ", not an array";
    return JsonView(nullptr, p);
  }
  if (index >= v_->u.array.len) {
    ADD_FAILURE() << "JSON: " << p << " is past the end (length " << v_->u.array.len << ")";
    return JsonView(nullptr, p);
  }
  return JsonView(v_->u.array.values[index], p);
}

long long JsonView::Int() const {
  if (YAJL_IS_INTEGER(v_) && strpbrk(YAJL_GET_NUMBER(v_), ".eE") == nullptr)
    return YAJL_GET_INTEGER(v_);
  ADD_FAILURE() << "JSON: " << path_ << " is " << TypeName(v_)
                << (YAJL_IS_NUMBER(v_) ? std::string(" ") + YAJL_GET_NUMBER(v_) : std::string())
                << ", expected an integer";
  return -1;
}

double JsonView::Num() const {
  if (YAJL_IS_INTEGER(v_)) return (double)YAJL_GET_INTEGER(v_);
  if (YAJL_IS_DOUBLE(v_)) return YAJL_GET_DOUBLE(v_);
  ADD_FAILURE() << "JSON: " << path_ << " is " << TypeName(v_) << ", expected a number";
  return std::numeric_limits<double>::quiet_NaN();
}

std::string JsonView::NumText() const {
  if (YAJL_IS_NUMBER(v_)) return YAJL_GET_NUMBER(v_);
  ADD_FAILURE() << "JSON: " << path_ << " is " << TypeName(v_) << ", expected a number";
  return "";
}

bool JsonView::Bool() const {
  if (YAJL_IS_TRUE(v_)) return true;
  if (YAJL_IS_FALSE(v_)) return false;
  ADD_FAILURE() << "JSON: " << path_ << " is " << TypeName(v_) << ", expected a boolean";
  return false;
}

std::string JsonView::Str() const {
  if (YAJL_IS_STRING(v_)) return YAJL_GET_STRING(v_);
  ADD_FAILURE() << "JSON: " << path_ << " is " << TypeName(v_) << ", expected a string";
  return "";
}

size_t JsonView::Size() const {
  if (YAJL_IS_ARRAY(v_)) return v_->u.array.len;
  ADD_FAILURE() << "JSON: " << path_ << " is " << TypeName(v_) << ", expected an array";
  return 0;
}

JsonDoc JsonDoc::Parse(const std::string &text) {
  JsonDoc d;
  char errbuf[1024] = "";
  d.root_.reset(yajl_tree_parse(text.c_str(), errbuf, sizeof errbuf));
  if (!d.root_) d.error_ = errbuf[0] ? errbuf : "unparseable JSON";
  return d;
}

namespace {

void CollectScalars(yajl_val v, const std::string &path, std::map<std::string, std::string> *m) {
  if (!v) return;
  if (YAJL_IS_NUMBER(v)) {
    (*m)[path] = YAJL_GET_NUMBER(v);
  } else if (YAJL_IS_TRUE(v)) {
    (*m)[path] = "true";
  } else if (YAJL_IS_FALSE(v)) {
    (*m)[path] = "false";
  } else if (YAJL_IS_OBJECT(v)) {
    for (size_t i = 0; i < v->u.object.len; i++)
      CollectScalars(v->u.object.values[i], path + "." + v->u.object.keys[i], m);
  } else if (YAJL_IS_ARRAY(v)) {
    for (size_t i = 0; i < v->u.array.len; i++)
      CollectScalars(v->u.array.values[i], path + "[" + std::to_string(i) + "]", m);
  }
}

}  // namespace

std::map<std::string, std::string> JsonScalars(const JsonView &v) {
  std::map<std::string, std::string> m;
  CollectScalars(v.raw(), v.path(), &m);
  return m;
}

::testing::AssertionResult RunJson(const std::vector<std::string> &args, JsonDoc *doc,
                                   CliResult *result) {
  std::vector<std::string> a = args;
  a.push_back("--json");
  CliResult r = RunCli(a);
  if (result) *result = r;
  if (r.exit_code != 0) return ::testing::AssertionFailure() << "expected exit code 0" << r;
  if (!r.err.empty()) return ::testing::AssertionFailure() << "expected an empty stderr" << r;
  *doc = JsonDoc::Parse(r.out);
  if (!doc->ok())
    return ::testing::AssertionFailure() << "stdout is not JSON: " << doc->error() << r;
  if (!YAJL_IS_OBJECT(doc->root().raw()))
    return ::testing::AssertionFailure() << "stdout is not a JSON object" << r;
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult RunFailsWithUsage(const std::vector<std::string> &args,
                                             const std::vector<std::string> &needles) {
  CliResult r = RunCli(args);
  if (r.exit_code != 2) return ::testing::AssertionFailure() << "expected exit code 2" << r;
  if (!r.out.empty())
    return ::testing::AssertionFailure() << "expected nothing on stdout for an error" << r;
  if (r.err.rfind("a2a3sim: ", 0) != 0)
    return ::testing::AssertionFailure() << "expected stderr to start with 'a2a3sim: '" << r;
  // docs/cli.md: an error is one line on stderr.
  if (r.err.back() != '\n' || r.err.find('\n') != r.err.size() - 1)
    return ::testing::AssertionFailure() << "expected exactly one line on stderr" << r;
  for (const std::string &n : needles)
    if (r.err.find(n) == std::string::npos)
      return ::testing::AssertionFailure() << "expected stderr to contain '" << n << "'" << r;
  return ::testing::AssertionSuccess();
}

// ---- files ----

TempDir::TempDir() {
  const char *base = getenv("TMPDIR");
  std::string templ = std::string(base && *base ? base : "/tmp") + "/a2a3sim-cli-test-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) {
    ADD_FAILURE() << "mkdtemp(" << templ << "): " << strerror(errno);
    return;
  }
  path_ = buf.data();
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string TempDir::Write(const std::string &name, const std::string &content) const {
  std::string p = path_ + "/" + name;
  std::ofstream f(p, std::ios::binary);
  f << content;
  f.close();
  if (!f) ADD_FAILURE() << "cannot write " << p;
  return p;
}

const std::vector<std::string> &UncontendedFlags() {
  static const std::vector<std::string> flags = {"--set", "chip.hbm.bandwidth=1000000TB/s",
                                                 "--set", "chip.hbm.latency=0ns",
                                                 "--set", "chip.mte.gm_to_ub=1000000TB/s",
                                                 "--set", "chip.mte.ub_to_gm=1000000TB/s",
                                                 "--set", "chip.clock=1000GHz",
                                                 "--set", "chip.vector.startup_cycles=0",
                                                 "--set", "chip.vector.bytes_per_cycle=1000000"};
  return flags;
}

std::vector<std::string> Args(std::vector<std::string> a, const std::vector<std::string> &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace a2test
