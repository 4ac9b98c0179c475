/* Generators, cards and shared phases of the collectives beyond all-reduce
 * (internal to collectives/; one file each, one registry row each). */
#ifndef A2_GENERATORS_H
#define A2_GENERATORS_H

#include "collectives/common.h"

A2_DECLARE_COLLECTIVE(broadcast);
A2_DECLARE_COLLECTIVE(allgather);
A2_DECLARE_COLLECTIVE(reduce_scatter);
A2_DECLARE_COLLECTIVE(all_to_all);
A2_DECLARE_COLLECTIVE(barrier);
A2_DECLARE_COLLECTIVE(compose_bcast_allreduce_allgather);

/* Phases the composition reuses. */

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

#endif
