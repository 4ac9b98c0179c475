/* Running out of memory where no caller can take an error back: inside an
 * event of a running simulation (a packet pool, an event queue, a DMA ring
 * that grows with the work in flight), called from the event kernel. There
 * the run cannot go on and cannot unwind, so the process ends: one line on
 * stderr (the only message library code prints), then the registered cleanup (the temporary files
 * of outputs not yet complete, common/outfile.h), then the process exits with status 3
 * (A2_EXIT_INTERNAL), never with a signal. Everywhere a caller can take an
 * error back, allocation failure is A2_E_NOMEM instead (common/err.h). */
#ifndef A2_OOM_H
#define A2_OOM_H

#ifdef __cplusplus
extern "C" {
#endif

/* What ran out: `what` names the allocation ("packets in flight"). Prints
 * "a2a3sim: error: out of memory for WHAT (the run cannot go on)" and exits
 * with status 3. Never returns. */
__attribute__((noreturn)) void a2_out_of_memory(const char *what);

/* Called by a2_out_of_memory after the handler, before the exit (one hook:
 * the output files' cleanup). */
void a2_oom_set_cleanup(void (*cleanup)(void));

#ifdef __cplusplus
}
#endif
#endif
