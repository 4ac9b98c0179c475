/* The event kernel, seen from C. SystemC 2.3 (Debian libsystemc-dev) does
 * the scheduling; this header is all the C code (noc/, model/) knows of it.
 *
 * How SystemC is used (see kernel.cc):
 *   - one process per hardware block (core, HBM controller, MTE engine,
 *     link port), created before the run starts: a C function and its
 *     context, never run automatically: it runs when someone calls
 *     a2k_wake_at;
 *   - a2k_wake_at(p, t) means "run p no later than t" (earliest pending
 *     wake-up wins, as with sc_event::notify); a process recomputes its own
 *     next wake-up every time it runs;
 *   - pending wake-ups are kept by the shim, in the same order SystemC's
 *     timed queue would keep them; SystemC advances time and holds one
 *     timed notification per distinct wake-up time, for a dispatcher
 *     SC_METHOD that runs the due processes in that order, and one delta
 *     notification for a second dispatcher (wake-ups for now): the order of
 *     activations is the one SystemC gives an SC_METHOD per process, each
 *     notifying its own sc_event (kernel.cc);
 *   - no SC_THREAD, no sc_event_queue, nothing per message or packet.
 * The shim itself only counts activations, passes on prefetch hints (below)
 * and translates errors: every SystemC exception (sc_report) is caught at
 * the C boundary and returned as A2_E_KERNEL. One simulation per OS
 * process: SystemC cannot re-elaborate.
 *
 * Times are absolute simulated picoseconds (uint64_t). */
#ifndef A2_KERNEL_H
#define A2_KERNEL_H

#include <stdint.h>

#include "common/err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t a2k_proc;
typedef void (*a2k_fn)(void *ctx);

/* Prepare the kernel (1 ps resolution, banner off). Call once per process,
 * before any a2k_proc_create. */
a2_code a2k_init(a2_err *err);

/* Create a process that calls fn(ctx) each time it is woken. Only before
 * the first a2k_run. */
a2_code a2k_proc_create(const char *name, a2k_fn fn, void *ctx, a2k_proc *out, a2_err *err);

/* A hint, optional: the kernel calls pf(ctx, level) for a process shortly
 * before it runs it (level 0 three activations ahead, level 1 two, level 2
 * one), so that the process can prefetch the state its activation touches
 * first, one level of pointers at a time (each level may read what the one
 * before prefetched). pf must not change any state: the hint is only given
 * when the kernel knows the order in which due processes run (those released
 * together at one time or delta cycle), and never changes that order. */
#define A2K_PREFETCH_LEVELS 3
typedef void (*a2k_prefetch_fn)(const void *ctx, int level);
void a2k_proc_set_prefetch(a2k_proc p, a2k_prefetch_fn pf);

/* Ask for process p to run at absolute time t_ps (clamped to now). If p is
 * already due earlier, this is a no-op; if due later, it moves earlier. */
void a2k_wake_at(a2k_proc p, uint64_t t_ps);

/* Current simulated time in ps. */
uint64_t a2k_now_ps(void);

/* The earliest time at which another process may run, as far as the kernel
 * knows now: now while some process due now has not run yet (or a delta
 * wake-up is pending), else the earliest pending wake-up, UINT64_MAX when
 * none. Called from a running process (which is not counted). */
uint64_t a2k_horizon_ps(void);

typedef enum {
  A2K_IDLE = 0,       /* no event left */
  A2K_TIME_LIMIT = 1, /* stopped at until_ps with events still pending */
  A2K_EVENT_LIMIT = 2 /* stopped after the activation limit; cannot continue */
} a2k_stop;

/* Stop the run (for good: SystemC cannot resume after sc_stop) once this many
 * process activations have happened. 0 = no limit. */
void a2k_set_event_limit(uint64_t max_activations);

/* Run until no event is left or simulated time reaches until_ps. Can be
 * called again to continue. */
a2_code a2k_run(uint64_t until_ps, a2k_stop *why, a2_err *err);

/* Process activations so far (the figure benchmarks report as events). */
uint64_t a2k_activations(void);

/* Number of processes created. */
uint32_t a2k_proc_count(void);

#ifdef __cplusplus
}
#endif
#endif
