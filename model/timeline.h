/* The timeline a run writes with --timeline: Chrome Trace Event JSON that
 * ui.perfetto.dev and chrome://tracing open. It is streamed: events go to the
 * file as they are produced (yajl's generator, flushed in blocks), so memory
 * does not grow with the length of the run.
 *
 * Times are given in ps and written in microseconds with 6 decimals (ps
 * precision) as the format wants. Track ids: a process (pid) per rank, a
 * thread (tid) per track; names are set once with a2_tl_process/a2_tl_thread. */
#ifndef A2_TIMELINE_H
#define A2_TIMELINE_H

#include <stdint.h>

#include "common/err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct a2_timeline a2_timeline;

/* One argument of a slice: an integer, or a string when s != NULL. */
typedef struct {
  const char *key;
  int64_t i;
  const char *s;
} a2_tl_arg;

/* The file is written under a temporary name next to path and renamed onto
 * path by a2_tl_close once complete (common/outfile.h): a write that fails
 * at any point (a full disk) leaves no file at path, and a2_tl_close reports
 * it once (A2_E_IO naming path). */
a2_code a2_tl_open(const char *path, a2_timeline **out, a2_err *err);
/* Finish the JSON and close the file; frees tl. */
a2_code a2_tl_close(a2_timeline *tl, a2_err *err);
/* Drop it: the temporary is removed, nothing at path changes; frees tl. */
void a2_tl_discard(a2_timeline *tl);

void a2_tl_process(a2_timeline *tl, uint32_t pid, const char *name, uint32_t sort_index);
void a2_tl_thread(a2_timeline *tl, uint32_t pid, uint32_t tid, const char *name,
                  uint32_t sort_index);
/* A complete slice ("X") on (pid, tid) from ts_ps lasting dur_ps. */
void a2_tl_slice(a2_timeline *tl, uint32_t pid, uint32_t tid, const char *name, const char *cat,
                 uint64_t ts_ps, uint64_t dur_ps, const a2_tl_arg *args, int nargs);
/* A flow arrow from a slice at (pid_a, tid_a, ts_a) to one at (pid_b, tid_b,
 * ts_b); both ends are written together, so every flow is complete. */
void a2_tl_flow(a2_timeline *tl, uint64_t id, const char *name, uint32_t pid_a, uint32_t tid_a,
                uint64_t ts_a, uint32_t pid_b, uint32_t tid_b, uint64_t ts_b);
/* A counter sample ("C"): series `name` of process pid takes value at ts. */
void a2_tl_counter(a2_timeline *tl, uint32_t pid, const char *name, uint64_t ts_ps, double value);

/* Events written so far. */
uint64_t a2_tl_events(const a2_timeline *tl);

#ifdef __cplusplus
}
#endif
#endif
