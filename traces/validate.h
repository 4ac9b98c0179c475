/* Static checks of a kernel before anything runs: every instruction refers
 * to declared buffers and tiles, stays in bounds, names a peer in range and
 * uses matching element types. Errors name the instruction's line. */
#ifndef A2_VALIDATE_H
#define A2_VALIDATE_H

#include "traces/program.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ub_bytes: unified-buffer capacity per core (all tiles must fit);
 * max_cores: vector cores per rank. `name` is the file for messages. */
a2_code a2_kernel_validate(const a2_kernel *k, uint64_t ub_bytes, uint32_t max_cores,
                           const char *name, a2_err *err);

/* The per-instruction checks of a2_kernel_validate, for n instructions of
 * program (rank, core): a streamed kernel's batches are checked as they are
 * filled (a2_kernel_validate checks only its declarations). */
a2_code a2_validate_batch(const a2_kernel *k, uint32_t rank, uint32_t core, const a2_instr *v,
                          uint32_t n, const char *name, a2_err *err);

#ifdef __cplusplus
}
#endif
#endif
