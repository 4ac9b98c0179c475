#include "collectives/builder.h"

#include <stdio.h>
#include <string.h>

a2_code a2_tb_begin(a2_tb *tb, a2_program *k, uint32_t nranks, uint32_t ncores, a2_err *err) {
  memset(tb, 0, sizeof *tb);
  tb->k = k;
  tb->err = err;
  tb->rc = a2_program_init(k, nranks, ncores, err);
  if (tb->rc == A2_OK && nranks && ncores) tb->cur = &k->progs[0];
  return tb->rc;
}

uint16_t a2_tb_buf(a2_tb *tb, const char *name, a2_buf_kind kind, a2_dtype t, uint64_t bytes,
                   a2_init_kind init) {
  a2_program *k = tb->k;
  if (tb->rc) return 0;
  if (k->nbufs == A2_MAX_BUFS) {
    tb->rc = a2_err_set(tb->err, A2_E_INPUT, NULL, 0, 0, "more than %d buffers", A2_MAX_BUFS);
    return 0;
  }
  a2_buf_decl *b = &k->bufs[k->nbufs];
  snprintf(b->name, sizeof b->name, "%s", name);
  b->kind = kind;
  b->dtype = t;
  b->bytes = bytes;
  k->init[k->nbufs] = init;
  return (uint16_t)k->nbufs++;
}

uint16_t a2_tb_tile(a2_tb *tb, const char *name, a2_dtype t, uint64_t bytes) {
  a2_program *k = tb->k;
  if (tb->rc) return 0;
  if (k->ntiles == A2_MAX_TILES) {
    tb->rc = a2_err_set(tb->err, A2_E_INPUT, NULL, 0, 0, "more than %d tiles", A2_MAX_TILES);
    return 0;
  }
  a2_tile_decl *d = &k->tiles[k->ntiles];
  snprintf(d->name, sizeof d->name, "%s", name);
  d->dtype = t;
  d->bytes = bytes;
  return (uint16_t)k->ntiles++;
}

uint16_t a2_tb_tile_in(a2_tb *tb, const char *name, a2_dtype t, uint64_t bytes, a2_space space) {
  uint16_t i = a2_tb_tile(tb, name, t, bytes);
  if (!tb->rc) tb->k->tiles[i].space = (uint8_t)space;
  return i;
}

void a2_tb_at(a2_tb *tb, uint32_t rank, uint32_t core) {
  if (tb->rc) return;
  tb->cur = a2_program_instrs(tb->k, rank, core);
  tb->line = tb->cur->n;
}

a2_code a2_tb_too_many(a2_err *err) {
  return a2_err_set(err, A2_E_INPUT, "--size", 0, 0,
                    "the program would have more than %u instructions (%u MiB) to hold "
                    "in memory; use fewer ranks or a smaller size (`run` produces built-in "
                    "programs on demand, without this limit; `gen` writes them whole)",
                    A2_TB_MAX_INSTRS,
                    (unsigned)(((uint64_t)A2_TB_MAX_INSTRS * sizeof(a2_instr)) >> 20));
}

/* ---- walks of a body, phases and steps ---- */

void a2_tb_walk(a2_tb *tb, a2_instrs *out, const a2_tb_resume *at, uint32_t limit) {
  tb->cur = out;
  tb->line = at->line;
  tb->at = *at;
  tb->limit = limit;
  tb->batch = 0;
  tb->waited = 0;
  tb->phase = 0;
  tb->count = 0;
  tb->walking = 1;
  tb->in_step = tb->stopped = 0;
}

a2_code a2_tb_walked(a2_tb *tb, a2_tb_resume *at) {
  if (!tb->stopped) { /* ran to the end (or failed) */
    tb->at.phase = A2_TB_DONE;
    tb->at.step = 0;
  }
  tb->at.line = tb->line;
  *at = tb->at;
  tb->walking = tb->in_step = 0;
  return tb->rc;
}

uint64_t a2_tb_phase(a2_tb *tb, uint64_t count) {
  uint32_t ph = tb->phase++;
  tb->count = count;
  tb->in_step = 0;
  if (ph < tb->at.phase) return count; /* finished by an earlier walk */
  if (ph == tb->at.phase) return tb->at.step < count ? tb->at.step : count;
  return 0;
}

void a2_tb_stop(a2_tb *tb, uint64_t s) {
  tb->stopped = 1;
  tb->at.phase = tb->phase - 1;
  tb->at.step = s;
}

/* The next instruction of the program being built, zeroed (the caller sets
 * its fields in place), or NULL when it must not be added (tb->rc says why). */
static a2_instr *push(a2_tb *tb, uint8_t op) {
  if (tb->rc) return NULL;
  if (tb->walking && !tb->in_step) {
    tb->rc = a2_err_set(tb->err, A2_E_INTERNAL, NULL, 0, 0,
                        "generator: an instruction outside a phase step (A2_STEPS)");
    return NULL;
  }
  if (!tb->lazy && tb->total >= A2_TB_MAX_INSTRS) { /* refuse before memory runs out */
    tb->rc = a2_tb_too_many(tb->err);
    return NULL;
  }
  if (tb->line == UINT32_MAX) {
    tb->rc = a2_err_set(tb->err, A2_E_INPUT, "--size", 0, 0,
                        "a program would have more than %u instructions", UINT32_MAX - 1);
    return NULL;
  }
  a2_instr *v = a2_instrs_add(tb->cur, tb->err);
  if (!v) {
    tb->rc = A2_E_NOMEM;
    return NULL;
  }
  v->op = op;
  v->line = ++tb->line;
  tb->total++;
  tb->batch++;
  return v;
}

/* The writers below set only their own fields of the zeroed instruction
 * (no stray padding: programs compare with memcmp).
 * load, store, remote_load, remote_store: a tile and a buffer region. */
static void tile_mem(a2_tb *tb, uint8_t op, uint8_t mode, uint16_t tile, uint16_t buf, int32_t peer,
                     uint64_t off, uint64_t len) {
  a2_instr *v = push(tb, op);
  if (!v) return;
  v->mode = mode;
  v->tile = tile;
  v->buf = buf;
  v->peer = peer;
  v->off = off;
  v->len = len;
}

void a2_tb_load(a2_tb *tb, uint16_t tile, uint16_t buf, uint64_t off, uint64_t len) {
  tile_mem(tb, A2_OP_LOAD, 0, tile, buf, 0, off, len);
}

void a2_tb_store(a2_tb *tb, uint16_t tile, uint16_t buf, uint64_t off, uint64_t len) {
  tile_mem(tb, A2_OP_STORE, 0, tile, buf, 0, off, len);
}

void a2_tb_rload(a2_tb *tb, uint16_t tile, uint16_t buf, uint32_t peer, uint64_t off,
                 uint64_t len) {
  tile_mem(tb, A2_OP_RLOAD, 0, tile, buf, (int32_t)peer, off, len);
}

void a2_tb_rstore(a2_tb *tb, uint16_t tile, uint16_t buf, uint32_t peer, uint64_t off, uint64_t len,
                  int atomic_add) {
  tile_mem(tb, A2_OP_RSTORE, (uint8_t)(atomic_add ? A2_MODE_ATOMIC_ADD : 0), tile, buf,
           (int32_t)peer, off, len);
}

void a2_tb_notify(a2_tb *tb, uint16_t sig, uint32_t peer, uint64_t cell, int mode, int32_t value) {
  a2_instr *v = push(tb, A2_OP_NOTIFY);
  if (!v) return;
  v->mode = (uint8_t)mode;
  v->buf = sig;
  v->peer = (int32_t)peer;
  v->value = value;
  v->off = cell * 4;
  v->len = 4;
}

void a2_tb_wait(a2_tb *tb, uint16_t sig, uint64_t cell, int mode, int32_t value) {
  a2_instr *v = push(tb, A2_OP_WAIT);
  if (!v) return;
  tb->waited = 1;
  v->mode = (uint8_t)mode;
  v->buf = sig;
  v->value = value;
  v->off = cell * 4;
  v->len = 4;
}

/* put and get: one DMA instruction, buf the destination, buf2 the source. */
static void dma(a2_tb *tb, uint8_t op, uint16_t buf, uint32_t peer, uint64_t off, uint64_t len,
                uint16_t buf2, uint64_t off2, const a2_tb_dma *how) {
  a2_instr *v = push(tb, op);
  if (!v) return;
  if (tb->k) tb->k->uses_dma = 1; /* a materialised program (a source's declares it) */
  v->buf = buf;
  v->peer = (int32_t)peer;
  v->off = off;
  v->len = len;
  v->buf2 = buf2;
  v->off2 = off2;
  v->queue = A2_QUEUE_ANY;
  if (!how) return;
  v->mode = (uint8_t)((how->pipeline ? A2_MODE_PIPELINE : 0) |
                      (how->atomic_add ? A2_MODE_DMA_ATOMIC_ADD : 0));
  v->chunk = how->chunk;
  v->queue = how->queue;
}

void a2_tb_put(a2_tb *tb, uint16_t dst_win, uint32_t peer, uint64_t off, uint64_t len,
               uint16_t src_buf, uint64_t src_off, const a2_tb_dma *how) {
  dma(tb, A2_OP_PUT, dst_win, peer, off, len, src_buf, src_off, how);
}

void a2_tb_get(a2_tb *tb, uint16_t dst_buf, uint64_t off, uint64_t len, uint16_t src_win,
               uint32_t peer, uint64_t src_off, const a2_tb_dma *how) {
  dma(tb, A2_OP_GET, dst_buf, peer, off, len, src_win, src_off, how);
}

void a2_tb_vop(a2_tb *tb, a2_opcode op, uint16_t dst, uint16_t a, uint16_t b, uint64_t len) {
  a2_instr *v = push(tb, (uint8_t)op);
  if (!v) return;
  v->tile = dst;
  v->tile_a = a;
  v->tile_b = b;
  v->len = len;
}

void a2_tb_compute(a2_tb *tb, int32_t cycles) {
  a2_instr *v = push(tb, A2_OP_COMPUTE);
  if (v) v->value = cycles;
}

void a2_tb_tload(a2_tb *tb, uint16_t l1, uint16_t buf, uint64_t off, uint64_t len) {
  tile_mem(tb, A2_OP_TLOAD, 0, l1, buf, 0, off, len);
}

void a2_tb_tfixpipe(a2_tb *tb, uint16_t c, uint16_t buf, uint64_t off, uint64_t len) {
  tile_mem(tb, A2_OP_TFIXPIPE, 0, c, buf, 0, off, len);
}

void a2_tb_textract(a2_tb *tb, uint16_t l0, uint16_t l1, uint64_t off, uint64_t len) {
  a2_instr *v = push(tb, A2_OP_TEXTRACT);
  if (!v) return;
  v->tile = l0;
  v->tile_a = l1;
  v->off2 = off;
  v->len = len;
}

void a2_tb_tmatmul(a2_tb *tb, uint16_t c, uint16_t a, uint16_t b, uint32_t m, uint32_t k,
                   uint32_t n, int acc) {
  a2_instr *v = push(tb, A2_OP_TMATMUL);
  if (!v) return;
  v->mode = (uint8_t)(acc ? 1 : 0);
  v->tile = c;
  v->tile_a = a;
  v->tile_b = b;
  v->value = (int32_t)m;
  v->chunk = k;
  v->off = n;
}
