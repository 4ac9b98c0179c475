/* What the collectives' files share beyond common.h (internal to
 * collectives/): the phases and cards the composition reuses, and the
 * closed forms of the registry (closed_form.c). */
#ifndef A2_GENERATORS_H
#define A2_GENERATORS_H

#include "collectives/common.h"

/* Broadcast of N bytes from `root` (broadcast.c): root copies src[0, N) to
 * its window `win` and to `out`, then signals cell 0 of `sig`; every other
 * rank waits for that signal and copies win@root to `out`. */
void a2_phase_broadcast(a2_tiles *t, uint32_t me, uint32_t root, uint32_t P, uint16_t src,
                        uint16_t win, uint16_t sig, a2_at out, uint64_t N, uint64_t piece);

/* Gather (allgather.c), one phase: once every rank's N-byte block is in its
 * window `win` at offset 0 (after a barrier), copy each peer's block, in the
 * order me+1, me+2, ... (mod P) so that no rank is everyone's first source,
 * to out[q*N]. The rank's own block is not copied. */
void a2_phase_gather(a2_tiles *t, uint32_t me, uint32_t P, uint16_t win, uint16_t out, uint64_t N,
                     uint64_t piece);

/* The cards the composition sums. */
void a2_card_broadcast(const a2_coll_params *p, a2_card *c);
void a2_card_allreduce_mesh(const a2_coll_params *p, a2_card *c);
void a2_card_allgather(const a2_coll_params *p, a2_card *c);

/* 2^floor(log2 P), 0 for P = 0 (allreduce_rhd.c). */
uint32_t a2_rhd_pow2_below(uint32_t P);
/* ceil(log2 P): the steps of each NHR phase (allreduce_nhr.c); 0 at P = 1 */
uint32_t a2_nhr_steps(uint32_t P);

/* Closed-form times, ps (closed_form.c; 0 where they do not apply). */
uint64_t a2_time_allreduce_mesh(const a2_coll_params *p, const a2_config *cfg);
uint64_t a2_time_allreduce_two_phase(const a2_coll_params *p, const a2_config *cfg);

#endif
