/* The trace-building API every collective generator uses (and, later, the
 * trace-file reader): declare buffers and tiles, pick a (rank, core)
 * program, append instructions. The first error is latched in tb->rc and
 * later calls do nothing, so generators check once at the end. Each
 * instruction gets the next generator step number as its `line`. */
#ifndef A2_BUILDER_H
#define A2_BUILDER_H

#include "traces/program.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Instructions one kernel may have, all programs together (a policy: the
 * programs are held in memory, 56 bytes an instruction). */
#define A2_TB_MAX_INSTRS (1u << 25)

typedef struct {
  a2_kernel *k;
  a2_program *cur;
  a2_err *err;
  a2_code rc;
  uint32_t step;
} a2_tb;

a2_code a2_tb_begin(a2_tb *tb, a2_kernel *k, uint32_t nranks, uint32_t ncores, a2_err *err);
uint16_t a2_tb_buf(a2_tb *tb, const char *name, a2_buf_kind kind, a2_dtype t, uint64_t bytes,
                   a2_init_kind init);
uint16_t a2_tb_tile(a2_tb *tb, const char *name, a2_dtype t, uint64_t bytes);
void a2_tb_at(a2_tb *tb, uint32_t rank, uint32_t core);

void a2_tb_load(a2_tb *tb, uint16_t tile, uint16_t buf, uint64_t off, uint64_t len);
void a2_tb_store(a2_tb *tb, uint16_t tile, uint16_t buf, uint64_t off, uint64_t len);
void a2_tb_rload(a2_tb *tb, uint16_t tile, uint16_t buf, uint32_t peer, uint64_t off,
                 uint64_t len);
void a2_tb_rstore(a2_tb *tb, uint16_t tile, uint16_t buf, uint32_t peer, uint64_t off,
                  uint64_t len, int atomic_add);
/* Signal cells are addressed by index (cell i = bytes [4i, 4i+4)). */
void a2_tb_notify(a2_tb *tb, uint16_t sig, uint32_t peer, uint64_t cell, int mode, int32_t value);
void a2_tb_wait(a2_tb *tb, uint16_t sig, uint64_t cell, int mode, int32_t value);
/* DMA copies (no UB tile), byte units. put: dst_win@peer[off, off+len) <-
 * src_buf[src_off, src_off+len); get: dst_buf[off, off+len) <-
 * src_win@peer[src_off, src_off+len). chunk > 0 moves chunk bytes per
 * transfer, one at a time, or two in flight when `pipeline` is set
 * (A2_MODE_PIPELINE); chunk 0 is one transfer. */
void a2_tb_put(a2_tb *tb, uint16_t dst_win, uint32_t peer, uint64_t off, uint64_t len,
               uint16_t src_buf, uint64_t src_off, uint32_t chunk, int pipeline);
void a2_tb_get(a2_tb *tb, uint16_t dst_buf, uint64_t off, uint64_t len, uint16_t src_win,
               uint32_t peer, uint64_t src_off, uint32_t chunk, int pipeline);
void a2_tb_vop(a2_tb *tb, a2_opcode op, uint16_t dst, uint16_t a, uint16_t b, uint64_t len);
void a2_tb_compute(a2_tb *tb, int32_t cycles);

#ifdef __cplusplus
}
#endif
#endif
