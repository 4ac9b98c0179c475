/* Static checks of a program before anything runs: every instruction refers
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
a2_code a2_program_validate(const a2_program *k, uint64_t ub_bytes, uint32_t max_cores,
                            const char *name, a2_err *err);

/* The per-instruction checks of a2_program_validate, for n instructions of
 * program (rank, core): a streamed program's batches are checked as they are
 * filled (a2_program_validate checks only its declarations). */
a2_code a2_validate_batch(const a2_program *k, uint32_t rank, uint32_t core, const a2_instr *v,
                          uint32_t n, const char *name, a2_err *err);

/* Cube (AIC) cores (validate_cube.c). The capacity of each tile space per
 * core (cap[A2_SPACE_UB] is the vector cores' UB) and the chip's cube cores
 * per rank: the tiles of each L1/L0 space must fit, and a program may not ask
 * for more cube cores than max_cube. */
typedef struct {
  uint64_t cap[A2_SPACES];
  uint32_t max_cube;
} a2_cube_caps;
a2_code a2_program_validate_cube(const a2_program *k, const a2_cube_caps *caps, const char *name,
                                 a2_err *err);
/* The operand checks of a tload / textract / tmatmul / tstore_fixpipe
 * (tile spaces, element types, shapes), for check_instr. */
a2_code a2_validate_cube_instr(const a2_program *k, const a2_instr *in, const char *name,
                               a2_err *err);
/* The gemm goldens: A, B and C hold M x K, K x N and M x N fp16 elements
 * and the blocking divides the shape. */
a2_code a2_validate_gemm_golden(const a2_program *k, const char *name, a2_err *err);
/* Whether instruction `in` may run on a core of its kind (cube: an AIC):
 * the cube instructions only on cube cores; vector ops, load/store, remote
 * access and put/get only on vector cores. */
a2_code a2_validate_core_kind(const a2_program *k, const a2_instr *in, int cube, const char *name,
                              a2_err *err);

#ifdef __cplusplus
}
#endif
#endif
