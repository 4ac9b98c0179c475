// Tests for kernel/kernel.h, the SystemC shim: when woken processes
// run, how two wake-ups of one process combine, how a2k_run reports why it
// stopped, and the activation / process counters. Every test runs its
// simulation in a forked child (fork_run.h): one SystemC elaboration per
// OS process.
#include "kernel/kernel.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "tests/support/fork_run.h"

namespace {

constexpr int kMaxRuns = 8;

// A process that records the simulated time of each of its activations.
struct Recorder {
  uint64_t at[kMaxRuns];
  int runs;
  // When > 0: on each run, wake itself again `again_ps` later, `again_left`
  // more times.
  uint64_t again_ps;
  int again_left;
  a2k_proc self;
};

void Record(void *ctx) {
  Recorder *r = static_cast<Recorder *>(ctx);
  if (r->runs < kMaxRuns) r->at[r->runs] = a2k_now_ps();
  r->runs++;
  if (r->again_left > 0) {
    r->again_left--;
    a2k_wake_at(r->self, a2k_now_ps() + r->again_ps);
  }
}

// Creating a recorder process; returns false (and the child reports it) on
// error.
bool MakeRecorder(const char *name, Recorder *r, a2_code *rc) {
  a2_err e{};
  *rc = a2k_proc_create(name, Record, r, &r->self, &e);
  return *rc == A2_OK;
}

struct InitResult {
  a2_code init_rc, create_rc;
};

bool Init(InitResult *s) {
  a2_err e{};
  s->init_rc = a2k_init(&e);
  return s->init_rc == A2_OK;
}

TEST(KernelTest, WokenProcessRunsAtExactlyThatTime) {
  struct Result {
    InitResult setup;
    a2_code run_rc;
    a2k_stop why;
    Recorder a, b;
    uint64_t now_after;
  } res;
  ASSERT_TRUE(a2test::RunForked(&res, [] {
    Result r{};
    if (!Init(&r.setup)) return r;
    if (!MakeRecorder("a", &r.a, &r.setup.create_rc)) return r;
    if (!MakeRecorder("b", &r.b, &r.setup.create_rc)) return r;
    r.b.again_ps = 1000;  // b: 777, 1777, 2777
    r.b.again_left = 2;
    a2k_wake_at(r.a.self, 123457);
    a2k_wake_at(r.b.self, 777);
    a2_err e{};
    r.run_rc = a2k_run(UINT64_MAX, &r.why, &e);
    r.now_after = a2k_now_ps();
    return r;
  }));
  ASSERT_EQ(res.setup.init_rc, A2_OK);
  ASSERT_EQ(res.setup.create_rc, A2_OK);
  ASSERT_EQ(res.run_rc, A2_OK);
  EXPECT_EQ(res.why, A2K_IDLE);
  ASSERT_EQ(res.a.runs, 1);
  EXPECT_EQ(res.a.at[0], 123457u);
  ASSERT_EQ(res.b.runs, 3);
  EXPECT_EQ(res.b.at[0], 777u);
  EXPECT_EQ(res.b.at[1], 1777u);
  EXPECT_EQ(res.b.at[2], 2777u);
  // Starvation stops the clock at the last event, not at until_ps.
  EXPECT_EQ(res.now_after, 123457u);
}

// A wake-up for a time already past runs the process now (same timestamp,
// next delta cycle), not at the requested time.
TEST(KernelTest, WakeInThePastRunsNow) {
  struct Result {
    InitResult setup;
    a2_code run_rc;
    Recorder waker, late;
  } res;
  static Result *cur = nullptr;
  ASSERT_TRUE(a2test::RunForked(&res, [] {
    static Result r{};
    cur = &r;
    if (!Init(&r.setup)) return r;
    a2_err e{};
    // waker runs at 5000 and asks for `late` at 10 (in the past).
    r.setup.create_rc = a2k_proc_create(
        "waker",
        [](void *) {
          Record(&cur->waker);
          a2k_wake_at(cur->late.self, 10);
        },
        nullptr, &r.waker.self, &e);
    if (r.setup.create_rc) return r;
    if (!MakeRecorder("late", &r.late, &r.setup.create_rc)) return r;
    a2k_wake_at(r.waker.self, 5000);
    a2k_stop why;
    r.run_rc = a2k_run(UINT64_MAX, &why, &e);
    return r;
  }));
  ASSERT_EQ(res.setup.init_rc, A2_OK);
  ASSERT_EQ(res.setup.create_rc, A2_OK);
  ASSERT_EQ(res.run_rc, A2_OK);
  ASSERT_EQ(res.waker.runs, 1);
  ASSERT_EQ(res.late.runs, 1);
  EXPECT_EQ(res.late.at[0], 5000u);
}

TEST(KernelTest, EarliestWakeWinsWhenWokenTwice) {
  struct Result {
    InitResult setup;
    a2_code run_rc;
    Recorder later_first, earlier_first;
  } res;
  ASSERT_TRUE(a2test::RunForked(&res, [] {
    Result r{};
    if (!Init(&r.setup)) return r;
    if (!MakeRecorder("lf", &r.later_first, &r.setup.create_rc)) return r;
    if (!MakeRecorder("ef", &r.earlier_first, &r.setup.create_rc)) return r;
    // Moved earlier: 900 then 300 -> runs once, at 300.
    a2k_wake_at(r.later_first.self, 900);
    a2k_wake_at(r.later_first.self, 300);
    // Already due earlier: 300 then 900 -> the 900 is a no-op.
    a2k_wake_at(r.earlier_first.self, 300);
    a2k_wake_at(r.earlier_first.self, 900);
    a2_err e{};
    a2k_stop why;
    r.run_rc = a2k_run(UINT64_MAX, &why, &e);
    return r;
  }));
  ASSERT_EQ(res.setup.init_rc, A2_OK);
  ASSERT_EQ(res.setup.create_rc, A2_OK);
  ASSERT_EQ(res.run_rc, A2_OK);
  ASSERT_EQ(res.later_first.runs, 1);
  EXPECT_EQ(res.later_first.at[0], 300u);
  ASSERT_EQ(res.earlier_first.runs, 1);
  EXPECT_EQ(res.earlier_first.at[0], 300u);
}

TEST(KernelTest, RunReturnsIdleWhenNoEventsRemain) {
  struct Result {
    InitResult setup;
    a2_code rc_empty, rc_events;
    a2k_stop why_empty, why_events;
    uint64_t activations_empty;
    Recorder p;
  } res;
  ASSERT_TRUE(a2test::RunForked(&res, [] {
    Result r{};
    r.why_empty = r.why_events = A2K_TIME_LIMIT;  // must be overwritten
    if (!Init(&r.setup)) return r;
    if (!MakeRecorder("p", &r.p, &r.setup.create_rc)) return r;
    a2_err e{};
    // Nothing woken yet: nothing to do.
    r.rc_empty = a2k_run(1000000, &r.why_empty, &e);
    r.activations_empty = a2k_activations();
    // Then one event, well before the bound.
    a2k_wake_at(r.p.self, 2000000);
    r.rc_events = a2k_run(UINT64_MAX, &r.why_events, &e);
    return r;
  }));
  ASSERT_EQ(res.setup.init_rc, A2_OK);
  ASSERT_EQ(res.setup.create_rc, A2_OK);
  ASSERT_EQ(res.rc_empty, A2_OK);
  EXPECT_EQ(res.why_empty, A2K_IDLE);
  EXPECT_EQ(res.activations_empty, 0u);
  ASSERT_EQ(res.rc_events, A2_OK);
  EXPECT_EQ(res.why_events, A2K_IDLE);
  ASSERT_EQ(res.p.runs, 1);
  EXPECT_EQ(res.p.at[0], 2000000u);
}

TEST(KernelTest, RunReturnsTimeLimitWhenBoundedWithEventsPending) {
  struct Result {
    InitResult setup;
    a2_code rc1, rc_again, rc2;
    a2k_stop why1, why_again, why2;
    int early_runs_1, late_runs_1, late_runs_2;
    uint64_t now_1;
    Recorder early, late;
  } res;
  ASSERT_TRUE(a2test::RunForked(&res, [] {
    Result r{};
    if (!Init(&r.setup)) return r;
    if (!MakeRecorder("early", &r.early, &r.setup.create_rc)) return r;
    if (!MakeRecorder("late", &r.late, &r.setup.create_rc)) return r;
    a2k_wake_at(r.early.self, 100);
    a2k_wake_at(r.late.self, 10000);
    a2_err e{};
    r.rc1 = a2k_run(5000, &r.why1, &e);
    r.early_runs_1 = r.early.runs;
    r.late_runs_1 = r.late.runs;
    r.now_1 = a2k_now_ps();
    // A bound not after now: nothing runs, but work is still pending.
    r.rc_again = a2k_run(r.now_1, &r.why_again, &e);
    r.rc2 = a2k_run(UINT64_MAX, &r.why2, &e);
    r.late_runs_2 = r.late.runs;
    return r;
  }));
  ASSERT_EQ(res.setup.init_rc, A2_OK);
  ASSERT_EQ(res.setup.create_rc, A2_OK);
  ASSERT_EQ(res.rc1, A2_OK);
  EXPECT_EQ(res.why1, A2K_TIME_LIMIT);
  EXPECT_EQ(res.early_runs_1, 1);
  EXPECT_EQ(res.late_runs_1, 0);
  EXPECT_GE(res.now_1, 100u);
  EXPECT_LE(res.now_1, 5000u);
  ASSERT_EQ(res.rc_again, A2_OK);
  EXPECT_EQ(res.why_again, A2K_TIME_LIMIT);
  ASSERT_EQ(res.rc2, A2_OK);
  EXPECT_EQ(res.why2, A2K_IDLE);
  ASSERT_EQ(res.late_runs_2, 1);
  EXPECT_EQ(res.late.at[0], 10000u);  // continuing keeps the absolute time
}

// A bounded run covers [now, until_ps): an event due exactly at the bound
// is still pending afterwards, with the clock at the bound, and runs (at its
// own time) when the run continues.
TEST(KernelTest, EventAtTheBoundRunsWhenTheRunContinues) {
  struct Result {
    InitResult setup;
    a2_code rc1, rc2;
    a2k_stop why1, why2;
    int runs1;
    uint64_t now1;
    Recorder p;
  } res;
  ASSERT_TRUE(a2test::RunForked(&res, [] {
    Result r{};
    if (!Init(&r.setup)) return r;
    if (!MakeRecorder("p", &r.p, &r.setup.create_rc)) return r;
    a2k_wake_at(r.p.self, 5000);
    a2_err e{};
    r.rc1 = a2k_run(5000, &r.why1, &e);
    r.runs1 = r.p.runs;
    r.now1 = a2k_now_ps();
    r.rc2 = a2k_run(UINT64_MAX, &r.why2, &e);
    return r;
  }));
  ASSERT_EQ(res.setup.init_rc, A2_OK);
  ASSERT_EQ(res.setup.create_rc, A2_OK);
  ASSERT_EQ(res.rc1, A2_OK);
  EXPECT_EQ(res.why1, A2K_TIME_LIMIT);
  EXPECT_EQ(res.runs1, 0);
  EXPECT_EQ(res.now1, 5000u);
  ASSERT_EQ(res.rc2, A2_OK);
  EXPECT_EQ(res.why2, A2K_IDLE);
  ASSERT_EQ(res.p.runs, 1);
  EXPECT_EQ(res.p.at[0], 5000u);
}

TEST(KernelTest, ActivationCountIncrementsOncePerRun) {
  struct Result {
    InitResult setup;
    a2_code rc1, rc2;
    uint64_t act0, act1, act2;
    uint32_t procs;
    Recorder p, q;
  } res;
  ASSERT_TRUE(a2test::RunForked(&res, [] {
    Result r{};
    if (!Init(&r.setup)) return r;
    if (!MakeRecorder("p", &r.p, &r.setup.create_rc)) return r;
    if (!MakeRecorder("q", &r.q, &r.setup.create_rc)) return r;
    r.procs = a2k_proc_count();
    r.act0 = a2k_activations();
    r.p.again_ps = 10;  // p runs at 0, 10, 20
    r.p.again_left = 2;
    a2k_wake_at(r.p.self, 0);
    a2k_wake_at(r.q.self, 1000);
    a2k_wake_at(r.q.self, 1000);  // same time twice: still one run
    a2_err e{};
    a2k_stop why;
    r.rc1 = a2k_run(500, &why, &e);
    r.act1 = a2k_activations();
    r.rc2 = a2k_run(UINT64_MAX, &why, &e);
    r.act2 = a2k_activations();
    return r;
  }));
  ASSERT_EQ(res.setup.init_rc, A2_OK);
  ASSERT_EQ(res.setup.create_rc, A2_OK);
  ASSERT_EQ(res.rc1, A2_OK);
  ASSERT_EQ(res.rc2, A2_OK);
  EXPECT_EQ(res.procs, 2u);
  EXPECT_EQ(res.act0, 0u);
  EXPECT_EQ(res.act1, 3u);
  EXPECT_EQ(res.act2, 4u);
  EXPECT_EQ(res.p.runs, 3);
  EXPECT_EQ(res.q.runs, 1);
  EXPECT_EQ(res.act2, static_cast<uint64_t>(res.p.runs + res.q.runs));
}

// --- order scenario (begin) ---
// A pseudo-random model-like wake pattern: many processes sharing few
// distinct times, wake-ups for now (delta), the past, the near future and
// later, moved earlier, repeated, self-wakes; bounded runs (some ending
// exactly at an event time) with wake-ups between them. The hash covers
// every activation's (time, process) in order and each run's result. The
// pinned value is the order SystemC itself gives when each process
// notifies its own sc_event (SystemC's timed queue decides same-time
// order); the shim must keep that order exactly: the model's results
// depend on it.
namespace order {
uint64_t rng, hash, acts;
int64_t budget;
a2k_proc procs[40];
constexpr unsigned kProcs = 40, kSpread = 5;
// Prefetch hints (a2k_proc_set_prefetch), when the scenario asks for them:
// the next level expected per process, activations that had all levels
// just before running, and hints out of order.
bool with_hints;
int next_level[40];
uint64_t fully_hinted, bad_hints;
void Hint(const void *ctx, int level) {
  uintptr_t id = reinterpret_cast<uintptr_t>(ctx);
  if (level != next_level[id]) bad_hints++;
  next_level[id] = level + 1;
}
uint64_t Rnd() {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}
void Mix(uint64_t v) {
  for (int i = 0; i < 8; i++) {
    hash ^= (v >> (8 * i)) & 0xff;
    hash *= 1099511628211ull;
  }
}
void WakeRandom(uint64_t now) {
  a2k_proc q = procs[Rnd() % kProcs];
  uint64_t r = Rnd() % 100, t;
  if (r < 15)
    t = now;
  else if (r < 20)
    t = now > 5 ? now - Rnd() % 5 : 0;
  else if (r < 60)
    t = now + 1 + Rnd() % kSpread;
  else if (r < 90)
    t = now + Rnd() % (kSpread * 8);
  else
    t = now + Rnd() % 3;
  a2k_wake_at(q, t);
}
void Run(void *ctx) {
  uint64_t now = a2k_now_ps();
  uintptr_t id = reinterpret_cast<uintptr_t>(ctx);
  Mix(now);
  Mix(id);
  acts++;
  if (next_level[id] == A2K_PREFETCH_LEVELS) fully_hinted++;
  next_level[id] = 0;
  if (budget <= 0) return;
  budget--;
  int k = static_cast<int>(Rnd() % 4);
  if (Rnd() % 3 == 0) k = 1;
  for (int i = 0; i < k; i++) WakeRandom(now);
  if (Rnd() % 4 == 0) a2k_wake_at(procs[id], now + 1 + Rnd() % kSpread);
}
// Returns false on a kernel error.
bool Scenario() {
  rng = 88172645463325252ull;
  hash = 1469598103934665603ull;
  acts = 0;
  budget = 30000;
  a2_err e{};
  if (a2k_init(&e)) return false;
  for (uintptr_t i = 0; i < kProcs; i++)
    if (a2k_proc_create("o", Run, reinterpret_cast<void *>(i), &procs[i], &e)) return false;
  if (with_hints)
    for (unsigned i = 0; i < kProcs; i++) a2k_proc_set_prefetch(procs[i], Hint);
  for (unsigned i = 0; i < kProcs; i++)
    if (Rnd() % 2) a2k_wake_at(procs[i], Rnd() % 20);
  a2k_stop why;
  for (int run = 0; run < 300; run++) {
    uint64_t now = a2k_now_ps();
    uint64_t until = now + Rnd() % (kSpread * 4);
    if (Rnd() % 5 == 0) until = now;
    if (a2k_run(until, &why, &e)) return false;
    Mix(a2k_now_ps());
    Mix(why);
    Mix(acts);
    int k = static_cast<int>(Rnd() % 4);
    for (int i = 0; i < k; i++) WakeRandom(a2k_now_ps());
    if (why == A2K_IDLE && Rnd() % 2) budget += 10;
  }
  if (a2k_run(UINT64_MAX, &why, &e)) return false;
  Mix(a2k_now_ps());
  Mix(why);
  Mix(a2k_activations());
  return true;
}
}  // namespace order
// --- order scenario (end) ---

TEST(KernelTest, SameTimeOrderIsSystemCTimedQueueOrder) {
  struct Result {
    bool ok;
    uint64_t hash, acts, now;
  } res;
  ASSERT_TRUE(a2test::RunForked(&res, [] {
    Result r{};
    r.ok = order::Scenario();
    r.hash = order::hash;
    r.acts = order::acts;
    r.now = a2k_now_ps();
    return r;
  }));
  ASSERT_TRUE(res.ok);
  EXPECT_EQ(res.acts, 30020u);
  EXPECT_EQ(res.now, 4867u);
  EXPECT_EQ(res.hash, 0x8856468098b37f71ull);
}

// The prefetch hint reaches each process, level by level, right before it
// runs, and changes nothing of the order.
TEST(KernelTest, PrefetchHintsComeInOrderBeforeEachActivationAndChangeNothing) {
  struct Result {
    bool ok;
    uint64_t hash, acts, fully, bad;
  } res;
  ASSERT_TRUE(a2test::RunForked(&res, [] {
    Result r{};
    order::with_hints = true;
    r.ok = order::Scenario();
    r.hash = order::hash;
    r.acts = order::acts;
    r.fully = order::fully_hinted;
    r.bad = order::bad_hints;
    return r;
  }));
  ASSERT_TRUE(res.ok);
  EXPECT_EQ(res.hash, 0x8856468098b37f71ull);
  EXPECT_EQ(res.bad, 0u);
  EXPECT_EQ(res.fully, res.acts);
}

TEST(KernelTest, ProcessCreationBeforeInitIsRefused) {
  struct Result {
    a2_code rc;
    uint32_t procs;
    char msg[sizeof(a2_err::msg)];
  } res;
  ASSERT_TRUE(a2test::RunForked(&res, [] {
    Result r{};
    a2_err e{};
    a2k_proc p;
    r.rc = a2k_proc_create("early", Record, nullptr, &p, &e);
    r.procs = a2k_proc_count();
    snprintf(r.msg, sizeof r.msg, "%s", e.msg);
    return r;
  }));
  EXPECT_EQ(res.rc, A2_E_INTERNAL);
  EXPECT_EQ(res.procs, 0u);
  EXPECT_NE(std::string(res.msg).find("a2k_init"), std::string::npos) << res.msg;
}

}  // namespace
