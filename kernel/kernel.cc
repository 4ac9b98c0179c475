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
//   inline in a flat array. SystemC still sees one timed notification per
//   distinct wake-up time: that of a dispatcher process, `timed_dispatch`,
//   which runs at that time, takes every entry due now off the heap in
//   exactly the order SystemC would have triggered them, and notifies each
//   process's own sc_event immediately, so that SystemC runs them in that
//   order in the same evaluation phase. Delta wake-ups (time <= now) go the
//   same way through `delta_dispatch`, released in SystemC's delta order
//   (reverse order of notification). The sequence of process activations
//   is therefore identical to notifying each process's event directly, same
//   time ties included (tests/kernel/kernel_test.cc pins it with a hash).
//
// Every activation of a model process is still one SystemC method process
// activation (sc_spawn, static sensitivity to its own sc_event).
//
// Prefetch hints: a dispatcher knows the order in which the processes it
// releases will run (`g_run`), so each activation first asks the processes
// due one to three places after it to prefetch their state
// (a2k_proc_set_prefetch), and the dispatcher prefetches SystemC's own
// objects of the processes it is about to notify.
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

// Everything the shim keeps of a process, on one line: waking it and
// hinting it read that line only (docs/architecture.md, "Layout and
// prefetch rules").
struct alignas(64) Proc {
  uint64_t due;  // time of the live heap entry when TIMED
  uint32_t gen;  // generation of the live heap entry when TIMED
  uint32_t state;
  sc_core::sc_event *ev;  // notified immediately by the dispatchers
  // the prefetch hint (a2k_proc_set_prefetch), and SystemC's process object
  // (cold at scale too)
  a2k_prefetch_fn pf;
  const void *ctx;
  const void *obj;
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
size_t g_cur = 0;             // g_run[g_cur] runs next
bool g_hinting = false;       // some process has a hint: keep g_run
uint64_t g_now = 0;           // == sc_time_stamp() whenever C code runs
uint64_t g_sched = kNever;    // pending time of g_timed_ev
sc_core::sc_event *g_timed_ev = nullptr;
sc_core::sc_event *g_delta_ev = nullptr;
uint64_t g_activations = 0;
uint64_t g_unrun = 0;        // processes released (notified) and not yet run
uint64_t g_event_limit = 0;  // 0 = none
bool g_limit_hit = false;
bool g_ready = false;

// The pending timed wake-ups: 1-based binary heap h[1..n], as sc_ppq.
struct Heap {
  Entry *h = nullptr;
  size_t n = 0, cap = 0;
} g_heap;

// Where the processes' sc_events live. An sc_event is 168 bytes (SystemC
// 2.3.3/2.3.4), of which notifying and triggering it read and write bytes
// 40-168 (its simcontext, notification state and lists of waiting
// processes; the name before them is cold). Placed 24 bytes past a line
// boundary those 128 bytes are two cache lines; from the C heap (16-byte
// aligned) they straddle three, and at thousands of processes each line is
// a miss per activation. (Only speed depends on this layout.) Chunks come
// from the C heap, so that leak checkers see what the events point to.
constexpr size_t kEvSlot = 192, kEvSkew = 24, kEvPerChunk = 4096;
static_assert(sizeof(sc_core::sc_event) + kEvSkew <= kEvSlot, "an event fits in its slot");
std::vector<char *> g_ev_chunks;
size_t g_ev_used = kEvPerChunk;  // in the last chunk

sc_core::sc_event *new_event(const char *name) {
  if (g_ev_used == kEvPerChunk) {
    g_ev_chunks.reserve(g_ev_chunks.size() + 1);  // no throw after the allocation
    char *c = static_cast<char *>(std::aligned_alloc(64, kEvSlot * kEvPerChunk));
    if (!c) throw std::bad_alloc();
    g_ev_chunks.push_back(c);
    g_ev_used = 0;
  }
  void *slot = g_ev_chunks.back() + g_ev_used * kEvSlot + kEvSkew;
  sc_core::sc_event *ev = new (slot) sc_core::sc_event(name);
  g_ev_used++;
  return ev;
}

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

// SystemC's objects of a process: what notifying it and running it read
// (its event's two lines at 40-168, new_event; a method process's
// scheduling state is at 128-360 of its object, the sc_object part before
// it).
inline void prefetch_sc(const Proc &h) {
  for (int i = 0; i < 2; i++) a2_prefetch(reinterpret_cast<const char *>(h.ev) + 40 + 64 * i);
  for (int i = 0; i < 7; i++) a2_prefetch(static_cast<const char *>(h.obj) + 64 * i);
}

inline void hint(size_t i, int level) {
  if (i >= g_run.size()) return;
  const Proc &h = g_procs[g_run[i]];
  if (!h.pf) return;
  if (level == 0) prefetch_sc(h);
  h.pf(h.ctx, level);
}

// The hints due when g_run[i] starts (i < 0: before the first one runs).
inline void hints_at(ptrdiff_t i) {
  for (int l = 0; l < A2K_PREFETCH_LEVELS; l++) {
    ptrdiff_t j = i + A2K_PREFETCH_LEVELS - l;
    if (j >= 0) hint(static_cast<size_t>(j), l);
  }
}

// A dispatcher has released g_run (SystemC runs immediately notified method
// processes in order of notification): start the hints.
void run_begin() {
  g_cur = 0;
  if (!g_hinting) return;
  for (ptrdiff_t i = -A2K_PREFETCH_LEVELS; i < 0; i++) hints_at(i);
}

inline void release(uint32_t p) {
  g_unrun++;
  g_procs[p].ev->notify();
  if (g_hinting) g_run.push_back(p);
}

// Notify g_run in order, prefetching SystemC's objects a few ahead.
void release_run() {
  constexpr size_t kAhead = 6;
  size_t n = g_run.size();
  for (size_t i = 0; i < n && i < kAhead; i++) prefetch_sc(g_procs[g_run[i]]);
  for (size_t i = 0; i < n; i++) {
    if (i + kAhead < n) prefetch_sc(g_procs[g_run[i + kAhead]]);
    g_unrun++;
    g_procs[g_run[i]].ev->notify();
  }
}

// H: prefetch hints are in use (g_run is kept); without them (packet
// timing) the dispatcher does exactly what it did before hints existed.
template <bool H>
void timed_dispatch_as() {
  if (H) g_run.clear();
  if (!g_prerel.empty()) {  // due at the previous run's bound: run them first
    for (uint32_t p : g_prerel) release(p);
    g_prerel.clear();
    if (H) run_begin();
    return;
  }
  g_now = sc_core::sc_time_stamp().value();
  g_sched = kNever;
  if (H) {
    take_due([](uint32_t p) { g_run.push_back(p); });
    release_run();
  } else
    take_due([](uint32_t p) {
      g_unrun++;
      g_procs[p].ev->notify();
    });
  reschedule(earliest_live());
  if (H) run_begin();
}

void timed_dispatch() {
  if (g_hinting)
    timed_dispatch_as<true>();
  else
    timed_dispatch_as<false>();
}

void delta_dispatch() {
  g_run.clear();
  // sc_simcontext::crunch triggers delta events last-notified first.
  for (size_t i = g_delta.size(); i-- > 0;) {
    g_procs[g_delta[i]].state = NONE;
    release(g_delta[i]);
  }
  g_delta.clear();
  run_begin();
}

// The functor SystemC runs for a process: count, then call into C.
struct Trampoline {
  a2k_fn fn;
  void *ctx;
  uint32_t id;
  void operator()() const {
    if (g_unrun) g_unrun--;
    if (g_limit_hit) return;
    if (g_event_limit && g_activations >= g_event_limit) {
      g_limit_hit = true;
      sc_core::sc_stop();
      return;
    }
    ++g_activations;
    if (g_hinting && g_cur < g_run.size() && g_run[g_cur] == id)
      hints_at(static_cast<ptrdiff_t>(g_cur++));
    fn(ctx);
  }
};

struct Dispatcher {
  void (*fn)();
  void operator()() const { fn(); }
};

// Returns the process's SystemC object.
const void *spawn_method(sc_core::sc_event *ev, const char *name, bool dispatcher, a2k_fn fn,
                         void *ctx, uint32_t id, void (*dfn)()) {
  sc_core::sc_spawn_options opts;
  opts.spawn_method();
  opts.dont_initialize();
  opts.set_sensitivity(ev);
  sc_core::sc_process_handle h = dispatcher
                                     ? sc_core::sc_spawn(Dispatcher{dfn}, name, &opts)
                                     : sc_core::sc_spawn(Trampoline{fn, ctx, id}, name, &opts);
  return h.get_process_object();
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
    spawn_method(g_timed_ev, "a2k_timed_dispatch", true, nullptr, nullptr, 0, timed_dispatch);
    spawn_method(g_delta_ev, "a2k_delta_dispatch", true, nullptr, nullptr, 0, delta_dispatch);
  } catch (const std::exception &e) {
    return kernel_error(err, "init", e.what());
  }
  g_ready = true;
  return A2_OK;
}

a2_code a2k_proc_create(const char *name, a2k_fn fn, void *ctx, a2k_proc *out, a2_err *err) {
  if (!g_ready) return a2_err_set(err, A2_E_INTERNAL, nullptr, 0, 0, "a2k_init not called");
  try {
    char ev_name[96];
    std::snprintf(ev_name, sizeof ev_name, "%s_ev%zu", name, g_procs.size());
    sc_core::sc_event *ev = new_event(ev_name);
    char proc_name[96];
    std::snprintf(proc_name, sizeof proc_name, "%s_p%zu", name, g_procs.size());
    const void *obj =
        spawn_method(ev, proc_name, false, fn, ctx, static_cast<uint32_t>(g_procs.size()), nullptr);
    *out = static_cast<a2k_proc>(g_procs.size());
    g_procs.push_back(Proc{0, 0, NONE, ev, nullptr, ctx, obj});
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
