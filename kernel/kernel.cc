// Thin C++ shim between the C model and SystemC. See kernel.h for the rules.
//
// How a wake-up reaches SystemC:
//
//   SystemC's own timed queue (sc_ppq, a binary heap of heap-allocated
//   sc_event_timed compared through a function pointer) is most of the
//   cost of an activation when every process has a pending wake-up, which
//   is the model's workload (bench/kernel_bench.c measures it). The shim keeps
//   the per-process pending wake-ups itself, in `g_heap`: the SAME binary
//   heap algorithm as sc_ppq (same sift-up, same heapify result, same strict
//   comparisons, same lazily deleted entries, purged at the same moments as
//   sc_simcontext::next_time does), but with the time
//   inline in a flat array. SystemC sees one timed notification per
//   distinct wake-up time: that of a dispatcher method process,
//   `timed_dispatch`, which runs at that time, takes every entry due now off
//   the heap in exactly the order SystemC would have triggered them, and
//   runs those model processes in that order, as SystemC runs the method
//   processes of events notified immediately (in order of notification, in
//   the same evaluation phase). Delta wake-ups (time <= now) go the same way
//   through `delta_dispatch`, a method process notified for the next delta
//   cycle, which runs them in SystemC's delta order (reverse order of
//   notification). The sequence of process activations is therefore
//   identical to giving each model process its own SC_METHOD and sc_event
//   and notifying that event directly, same time ties included
//   (tests/kernel/kernel_test.cc pins it with a hash). A model process is a
//   C function and its context on one line of `g_procs`; running it touches
//   no SystemC object (an sc_event, a method process object and a spawn
//   functor per process were about ten cold lines per activation at scale).
//
// Prefetch hints: a dispatcher knows the order in which the processes it
// releases will run (`g_run`), so each activation first asks the processes
// due one to three places after it to prefetch their state
// (a2k_proc_set_prefetch), and the shim prefetches its own line of the
// processes further ahead.
// At thousands of ranks every activation starts from cold cache and follows
// a chain of dependent loads (core, program, instruction, stage); this
// overlaps those chains with the work of the activations before.
#include "kernel/kernel.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <vector>

#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include "common/oom.h"
#include "common/prefetch.h"

namespace {

constexpr uint64_t kNever = UINT64_MAX;

// What an sc_event::notify would have left pending for a process.
enum Pending : uint32_t { NONE = 0, DELTA = 1, TIMED = 2 };

// Everything the shim keeps of a process, on one line: waking it, hinting
// it and running it read that line only (docs/architecture.md, "Layout and
// prefetch rules").
struct alignas(64) Proc {
  uint64_t due;  // time of the live heap entry when TIMED
  uint32_t gen;  // generation of the live heap entry when TIMED
  uint32_t state;
  a2k_fn fn;  // the process: fn(ctx)
  void *ctx;
  a2k_prefetch_fn pf;  // the prefetch hint (a2k_proc_set_prefetch), NULL: none
};

// One heap entry: live iff its process is TIMED with the same generation
// (a superseded entry stays in the heap, as a cancelled sc_event_timed does).
struct Entry {
  uint64_t t;
  uint32_t proc;
  uint32_t gen;
};

std::vector<Proc> g_procs;
std::vector<uint32_t> g_delta;   // processes with a delta wake-up, in order
std::vector<uint32_t> g_prerel;  // triggered at a run's bound, not yet run

std::vector<uint32_t> g_run;  // released by the last dispatcher, in run order
bool g_hinting = false;       // some process has a hint
uint64_t g_now = 0;           // == sc_time_stamp() whenever C code runs
uint64_t g_sched = kNever;    // pending time of g_timed_ev
sc_core::sc_event *g_timed_ev = nullptr;
sc_core::sc_event *g_delta_ev = nullptr;
uint64_t g_activations = 0;
uint64_t g_unrun = 0;        // processes released and not yet run
uint64_t g_event_limit = 0;  // 0 = none
bool g_limit_hit = false;
bool g_ready = false;

// The pending timed wake-ups: 1-based binary heap h[1..n], as sc_ppq.
struct Heap {
  Entry *h = nullptr;
  size_t n = 0, cap = 0;
} g_heap;

inline bool live(const Entry &e) {
  const Proc &p = g_procs[e.proc];
  return p.state == TIMED && p.gen == e.gen;
}

// sc_ppq_base::insert with sc_notify_time_compare: move up past strictly
// later parents.
inline void heap_insert(Entry e) {
  Heap &q = g_heap;
  if (q.n + 1 >= q.cap) {
    size_t cap = q.cap ? q.cap * 2 : 1024;
    Entry *h = static_cast<Entry *>(std::realloc(q.h, cap * sizeof *h));
    if (!h) a2_out_of_memory("the event kernel's wake-ups");
    q.h = h;
    q.cap = cap;
  }
  Entry *h = q.h;
  size_t i = ++q.n;
  while (i > 1 && h[i >> 1].t > e.t) {
    h[i] = h[i >> 1];
    i >>= 1;
  }
  h[i] = e;
}

// sc_ppq_base::extract_top: the last entry x goes to the root and heapify(1)
// moves it down to the earlier child while that child is strictly earlier
// than x (left on ties). Done here as Floyd's variant, which leaves the
// same array: walk the hole down the earlier-child path to a leaf, then back
// up while the parent is not earlier than x (the path is sorted, and heapify
// stops at the first child >= x).
inline Entry heap_extract() {
  Heap &q = g_heap;
  Entry *h = q.h;
  Entry top = h[1];
  Entry x = h[q.n];
  size_t n = --q.n;
  if (!n) return top;
  size_t i = 1, c;
  while ((c = 2 * i) < n) {
    c += h[c + 1].t < h[c].t;
    h[i] = h[c];
    i = c;
  }
  if (c == n) {
    h[i] = h[c];
    i = c;
  }
  while (i > 1 && h[i >> 1].t >= x.t) {
    h[i] = h[i >> 1];
    i >>= 1;
  }
  h[i] = x;
  return top;
}

// The dead-entry purge of sc_simcontext::next_time.
inline void heap_purge() {
  while (g_heap.n && !live(g_heap.h[1])) heap_extract();
}

// Earliest live entry, without changing the heap (purging here would change
// the order of later ties): only dead entries are looked through.
uint64_t earliest_live() {
  const Entry *h = g_heap.h;
  size_t n = g_heap.n;
  if (!n) return kNever;
  if (live(h[1])) return h[1].t;
  uint64_t best = kNever;
  std::vector<size_t> todo{1};
  while (!todo.empty()) {
    size_t i = todo.back();
    todo.pop_back();
    if (i > n || h[i].t >= best) continue;
    if (live(h[i])) {
      best = h[i].t;
    } else {
      todo.push_back(2 * i);
      todo.push_back(2 * i + 1);
    }
  }
  return best;
}

// Point the dispatcher at the earliest live wake-up (kNever: none).
void reschedule(uint64_t t) {
  if (t == g_sched) return;
  if (t > g_sched) g_timed_ev->cancel();
  g_sched = t;
  if (t != kNever) g_timed_ev->notify(sc_core::sc_time::from_value(t - g_now));
}

// Take every entry due at g_now off the heap (the timed-notification loop of
// sc_simcontext::simulate) and release the live ones, in that order.
template <typename F>
inline void take_due(F &&release) {
  heap_purge();
  while (g_heap.n && g_heap.h[1].t == g_now) {
    Entry e = heap_extract();
    if (live(e)) {
      g_procs[e.proc].state = NONE;
      release(e.proc);
    }
  }
}

inline void hint(size_t i, int level) {
  if (i >= g_run.size()) return;
  const Proc &h = g_procs[g_run[i]];
  if (h.pf) h.pf(h.ctx, level);
}

// The hints due when g_run[i] starts (i < 0: before the first one runs).
inline void hints_at(ptrdiff_t i) {
  for (int l = 0; l < A2K_PREFETCH_LEVELS; l++) {
    ptrdiff_t j = i + A2K_PREFETCH_LEVELS - l;
    if (j >= 0) hint(static_cast<size_t>(j), l);
  }
}

// Run the processes of g_run in order, as SystemC runs the method processes
// of events notified immediately: the dispatchers' released processes. Each
// counts as an activation; the hints come level by level before each one.
template <bool H>
void run_released() {
  constexpr size_t kAhead = 6;  // the shim's own line of a process, this far ahead
  size_t n = g_run.size();
  g_unrun = n;
  if (H) {
    for (size_t i = 0; i < n && i < kAhead; i++) a2_prefetch(&g_procs[g_run[i]]);
    for (ptrdiff_t i = -A2K_PREFETCH_LEVELS; i < 0; i++) hints_at(i);
  }
  for (size_t i = 0; i < n; i++) {
    g_unrun--;
    if (g_limit_hit) continue;
    if (g_event_limit && g_activations >= g_event_limit) {
      g_limit_hit = true;
      sc_core::sc_stop();
      continue;
    }
    ++g_activations;
    if (H) {
      if (i + kAhead < n) a2_prefetch(&g_procs[g_run[i + kAhead]]);
      hints_at(static_cast<ptrdiff_t>(i));
    }
    const Proc &p = g_procs[g_run[i]];
    p.fn(p.ctx);
  }
}

void run_released_all() {
  if (g_hinting)
    run_released<true>();
  else
    run_released<false>();
}

void timed_dispatch() {
  g_run.clear();
  if (!g_prerel.empty()) {  // due at the previous run's bound: run them first
    g_run.swap(g_prerel);
    run_released_all();
    return;
  }
  g_now = sc_core::sc_time_stamp().value();
  g_sched = kNever;
  take_due([](uint32_t p) { g_run.push_back(p); });
  reschedule(earliest_live());
  run_released_all();
}

void delta_dispatch() {
  g_run.clear();
  // sc_simcontext::crunch triggers delta events last-notified first.
  for (size_t i = g_delta.size(); i-- > 0;) {
    g_procs[g_delta[i]].state = NONE;
    g_run.push_back(g_delta[i]);
  }
  g_delta.clear();
  run_released_all();
}

struct Dispatcher {
  void (*fn)();
  void operator()() const { fn(); }
};

void spawn_dispatcher(sc_core::sc_event *ev, const char *name, void (*fn)()) {
  sc_core::sc_spawn_options opts;
  opts.spawn_method();
  opts.dont_initialize();
  opts.set_sensitivity(ev);
  sc_core::sc_spawn(Dispatcher{fn}, name, &opts);
}

// What sc_pending_activity() reports, with the same purge.
bool pending() {
  if (!g_delta.empty() || !g_prerel.empty()) return true;
  heap_purge();
  return g_heap.n != 0;
}

a2_code kernel_error(a2_err *err, const char *what, const char *detail) {
  return a2_err_set(err, A2_E_KERNEL, nullptr, 0, 0, "SystemC %s: %s", what, detail);
}

}  // namespace

// libsystemc's own main() is never used (the C program owns main), but the
// library references sc_main, so it must exist.
int sc_main(int, char **) {
  return 0;
}

extern "C" {

a2_code a2k_init(a2_err *err) {
  if (g_ready) return A2_OK;
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  try {
    // Also silence the "sc_set_time_resolution after time object" path:
    // the first call below creates the default simcontext.
    sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
    // Deprecation/info chatter would go to stdout, which carries results.
    sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DO_NOTHING);
    g_timed_ev = new sc_core::sc_event("a2k_timed_ev");
    g_delta_ev = new sc_core::sc_event("a2k_delta_ev");
    spawn_dispatcher(g_timed_ev, "a2k_timed_dispatch", timed_dispatch);
    spawn_dispatcher(g_delta_ev, "a2k_delta_dispatch", delta_dispatch);
  } catch (const std::exception &e) {
    return kernel_error(err, "init", e.what());
  }
  g_ready = true;
  return A2_OK;
}

a2_code a2k_proc_create(const char *name, a2k_fn fn, void *ctx, a2k_proc *out, a2_err *err) {
  (void)name;
  if (!g_ready) return a2_err_set(err, A2_E_INTERNAL, nullptr, 0, 0, "a2k_init not called");
  try {
    *out = static_cast<a2k_proc>(g_procs.size());
    g_procs.push_back(Proc{0, 0, NONE, fn, ctx, nullptr});
  } catch (const std::exception &e) {
    return kernel_error(err, "process creation", e.what());
  }
  return A2_OK;
}

void a2k_proc_set_prefetch(a2k_proc p, a2k_prefetch_fn pf) {
  g_procs[p].pf = pf;
  if (pf) g_hinting = true;
}

// sc_event::notify(t - now) for the process's event, kept on the C side.
void a2k_wake_at(a2k_proc p, uint64_t t_ps) {
  Proc &pr = g_procs[p];
  if (pr.state == DELTA) return;  // a delta notification wins over any other
  if (t_ps <= g_now) {
    bool was_sched = pr.state == TIMED && pr.due == g_sched;
    pr.state = DELTA;  // the timed entry, if any, is now dead
    g_delta.push_back(p);
    if (g_delta.size() == 1) g_delta_ev->notify(sc_core::SC_ZERO_TIME);
    if (was_sched) reschedule(earliest_live());
    return;
  }
  if (pr.state == TIMED && pr.due <= t_ps) return;
  pr.state = TIMED;
  pr.due = t_ps;
  heap_insert(Entry{t_ps, p, ++pr.gen});
  if (t_ps < g_sched) reschedule(t_ps);
}

uint64_t a2k_now_ps(void) {
  return g_now;
}

uint64_t a2k_horizon_ps(void) {
  if (g_unrun || !g_delta.empty() || !g_prerel.empty()) return g_now;
  return g_sched;  // the earliest live wake-up (kNever: none)
}

void a2k_set_event_limit(uint64_t max_activations) {
  g_event_limit = max_activations;
}

a2_code a2k_run(uint64_t until_ps, a2k_stop *why, a2_err *err) {
  if (g_limit_hit) {
    *why = A2K_EVENT_LIMIT;
    return A2_OK;
  }
  try {
    uint64_t now = sc_core::sc_time_stamp().value();
    if (until_ps <= now) {
      *why = pending() ? A2K_TIME_LIMIT : A2K_IDLE;
      return A2_OK;
    }
    sc_core::sc_start(sc_core::sc_time::from_value(until_ps - now), sc_core::SC_EXIT_ON_STARVATION);
    g_now = sc_core::sc_time_stamp().value();
    if (g_limit_hit) {
      *why = A2K_EVENT_LIMIT;
      return A2_OK;
    }
    if (g_sched == g_now) {
      // SystemC stopped at the bound after triggering what is due there
      // (the dispatcher, not run yet). Those processes count as triggered
      // now, as their own events would have been: take them off the heap.
      g_sched = kNever;
      take_due([](uint32_t p) { g_prerel.push_back(p); });
      reschedule(earliest_live());
    }
    *why = pending() ? A2K_TIME_LIMIT : A2K_IDLE;
  } catch (const std::exception &e) {
    return kernel_error(err, "run", e.what());
  } catch (...) {
    return kernel_error(err, "run", "unknown exception");
  }
  return A2_OK;
}

uint64_t a2k_activations(void) {
  return g_activations;
}

uint32_t a2k_proc_count(void) {
  return static_cast<uint32_t>(g_procs.size());
}

}  // extern "C"
