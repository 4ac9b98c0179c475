#include "collectives/common.h"

#include <stdio.h>

a2_opcode a2_reduce_opcode(a2_reduce_op op) {
  static const a2_opcode map[] = {A2_OP_VADD, A2_OP_VMAX, A2_OP_VMIN, A2_OP_VMUL};
  return map[op];
}

uint64_t a2_coll_chunk_bytes(uint64_t ub_bytes) {
  uint64_t c = 64 * 1024;
  while (c > 32 && 3 * c > ub_bytes) c /= 2;
  return c;
}

/* ---- data phases ---- */

void a2_tiles_declare(a2_tileset *set, a2_tb *tb, a2_dtype dt, uint64_t bytes, uint32_t nacc,
                      uint32_t nrecv) {
  *set = (a2_tileset){.nacc = nacc, .nrecv = nrecv, .bytes = bytes};
  if (nacc > A2_COLL_MAX_ACC || nrecv == 0 || nrecv > A2_COLL_MAX_RECV) {
    if (!tb->rc)
      tb->rc = a2_err_set(tb->err, A2_E_INTERNAL, NULL, 0, 0,
                          "%u accumulators and %u receive tiles: outside 0..%d and 1..%d", nacc,
                          nrecv, A2_COLL_MAX_ACC, A2_COLL_MAX_RECV);
    set->nacc = set->nrecv = 1; /* keeps later calls in bounds; they do nothing now */
    return;
  }
  char name[16];
  for (uint32_t i = 0; i < nacc; i++) {
    if (nacc == 1)
      snprintf(name, sizeof name, "acc");
    else
      snprintf(name, sizeof name, "acc%u", i);
    set->acc[i] = a2_tb_tile(tb, name, dt, bytes);
  }
  if (nacc == 0) set->nacc = 1; /* acc[0] unused: a copies-only set never reduces */
  for (uint32_t i = 0; i < nrecv; i++) {
    snprintf(name, sizeof name, "recv%u", i);
    set->recv[i] = a2_tb_tile(tb, name, dt, bytes);
  }
}

/* tile <- src[off, off+len): a local load or a (possibly local) remote_load. */
static void fetch(a2_tb *tb, uint16_t tile, a2_at src, uint64_t off, uint64_t len) {
  if (src.peer == A2_LOCAL)
    a2_tb_load(tb, tile, src.buf, src.off + off, len);
  else
    a2_tb_rload(tb, tile, src.buf, (uint32_t)src.peer, src.off + off, len);
}

static void store_all(a2_tb *tb, uint16_t tile, const a2_at *dst, uint32_t ndst, uint64_t off,
                      uint64_t len) {
  for (uint32_t d = 0; d < ndst; d++) a2_tb_store(tb, tile, dst[d].buf, dst[d].off + off, len);
}

void a2_coll_copy_piece(a2_tiles *t, uint64_t turn, a2_at src, const a2_at *dst, uint32_t ndst,
                        uint64_t off, uint64_t n) {
  uint16_t tile = a2_recv_tile(t, turn);
  fetch(t->tb, tile, src, off, n);
  store_all(t->tb, tile, dst, ndst, off, n);
}

void a2_coll_copy(a2_tiles *t, a2_at src, const a2_at *dst, uint32_t ndst, uint64_t len,
                  uint64_t piece) {
  uint64_t turn = t->turn, np = a2_pieces(len, piece);
  t->turn += np;
  A2_STEPS(t->tb, s, np) {
    uint64_t off = s * piece;
    a2_coll_copy_piece(t, turn + s, src, dst, ndst, off, a2_min64(len - off, piece));
  }
}

void a2_coll_reduce_step(a2_tiles *t, const a2_reduction *r, uint16_t acc, uint64_t turn,
                         uint64_t off, uint64_t n, uint64_t k) {
  if (k == 0) {
    fetch(t->tb, acc, r->own, off, n);
  } else if (k < r->P) {
    uint16_t recv = a2_recv_tile(t, turn + k - 1);
    a2_tb_rload(t->tb, recv, r->win, a2_nth_peer(r->me, r->P, r->first, k - 1), r->win_off + off,
                n);
    a2_tb_vop(t->tb, r->vop, acc, acc, recv, n);
  } else {
    store_all(t->tb, acc, r->dst, r->ndst, off, n);
  }
}

void a2_coll_reduce(a2_tiles *t, const a2_reduction *r, uint64_t len, uint64_t piece) {
  uint64_t acc_turn = t->acc_turn, np = a2_pieces(len, piece), per = a2_reduce_steps(r->P);
  t->acc_turn += np;
  A2_STEPS(t->tb, s, np * per) {
    uint64_t i = s / per, off = i * piece;
    a2_coll_reduce_step(t, r, a2_acc_tile(t, acc_turn + i), t->turn, off,
                        a2_min64(len - off, piece), s % per);
  }
}

/* ---- synchronisation ---- */

void a2_coll_barrier_at(a2_tb *tb, uint32_t me, uint32_t P, uint16_t sig, uint64_t base,
                        uint64_t stride) {
  uint64_t n = P - 1;
  A2_STEPS(tb, s, 2 * n) {
    uint32_t q = a2_nth_peer(me, P, 0, s % n); /* notify peers, then wait for them, in rank order */
    if (s < n)
      a2_tb_notify(tb, sig, q, base + me * stride, A2_MODE_ADD, 1);
    else
      a2_tb_wait(tb, sig, base + q * stride, A2_MODE_GE, 1);
  }
}

void a2_coll_barrier(a2_tb *tb, uint32_t me, uint32_t P, uint16_t sig, uint32_t row) {
  a2_coll_barrier_at(tb, me, P, sig, (uint64_t)row * P, 1);
}

void a2_coll_signal_from(a2_tb *tb, uint32_t me, uint32_t root, uint32_t P, uint16_t sig,
                         uint64_t cell) {
  A2_STEPS(tb, s, me == root ? P - 1 : 1) {
    if (me != root)
      a2_tb_wait(tb, sig, cell, A2_MODE_GE, 1);
    else
      a2_tb_notify(tb, sig, a2_nth_peer(root, P, 0, s), cell, A2_MODE_SET, 1);
  }
}

void a2_coll_credit_barrier(a2_tb *tb, uint32_t me, uint32_t P, uint16_t sig, uint32_t gen) {
  uint64_t cell = gen % 2, n = P - 1;
  A2_STEPS(tb, s, P < 2 ? 0 : n + 3) {
    if (s < n)
      a2_tb_notify(tb, sig, a2_nth_peer(me, P, 0, s), cell, A2_MODE_ADD, 1);
    else if (s == n)
      a2_tb_wait(tb, sig, cell, A2_MODE_GE, (int32_t)(P - 1));
    /* Epilogue: the credits of this barrier are exactly P-1 (a peer's next
     * credit goes to the other cell), so the counter reads 0 once the
     * decrement has landed; waiting for that orders it before anything the
     * rank does next. */
    else if (s == n + 1)
      a2_tb_notify(tb, sig, me, cell, A2_MODE_ADD, -(int32_t)(P - 1));
    else
      a2_tb_wait(tb, sig, cell, A2_MODE_EQ, 0);
  }
}

/* ---- checks ---- */

a2_code a2_coll_check_multiple(const a2_coll_params *p, uint64_t multiple, const char *why,
                               a2_err *err) {
  if (p->size_bytes == 0 || p->size_bytes % multiple)
    return a2_err_set(err, A2_E_INPUT, "--size", 0, 0,
                      "%llu bytes is not a positive multiple of %llu bytes (%s)",
                      (unsigned long long)p->size_bytes, (unsigned long long)multiple, why);
  return A2_OK;
}

a2_code a2_check_p_chunks(const a2_coll_params *p, a2_err *err) {
  return a2_coll_check_multiple(p, (uint64_t)a2_dtype_size(p->dtype) * p->nranks,
                                "the slice is cut into P chunks of whole elements", err);
}

a2_code a2_coll_check_elems(const a2_coll_params *p, a2_err *err) {
  return a2_coll_check_multiple(p, a2_dtype_size(p->dtype), "whole elements", err);
}

a2_code a2_coll_check_single_core(const a2_coll_params *p, a2_err *err) {
  if (p->cores != 1)
    return a2_err_set(
        err, A2_E_INPUT, "--cores", 0, 0,
        "this collective runs on 1 vector core per rank, got %u (only allreduce_mesh, "
        "allreduce_two_phase, allgather, reduce_scatter, all_to_all and the hierarchical "
        "all-reduces split their payload over several cores)",
        p->cores);
  return A2_OK;
}

a2_code a2_coll_check_cores(const a2_coll_params *p, a2_err *err) {
  if (p->cores == 0)
    return a2_err_set(err, A2_E_INPUT, "--cores", 0, 0, "expected at least 1 vector core");
  if (p->max_cores && p->cores > p->max_cores)
    return a2_err_set(err, A2_E_INPUT, "--cores", 0, 0,
                      "%u vector cores per rank requested; the chip has %u (chip.vector_cores)",
                      p->cores, p->max_cores);
  return A2_OK;
}

a2_code a2_coll_check_root(const a2_coll_params *p, a2_err *err) {
  if (p->root >= p->nranks)
    return a2_err_set(err, A2_E_INPUT, "--root", 0, 0, "root %u is not a rank: expected 0..%u",
                      p->root, p->nranks - 1);
  return A2_OK;
}

/* ---- a collective's program ---- */

void a2_coll_set_piece(a2_coll_ctx *c, uint64_t len, uint64_t piece) {
  c->T = a2_min64(len, piece);
  c->np = c->T ? a2_pieces(len, c->T) : 0;
}

a2_code a2_coll_declare(a2_tb *tb, const a2_coll_params *p, a2_program *k,
                        const a2_coll_shape *shape, a2_coll_ctx *c, a2_err *err) {
  uint32_t P = p->nranks, C = shape->multi_core && p->cores > 1 ? p->cores : 1,
           root = shape->rooted ? p->root : 0;
  uint64_t N = p->size_bytes;
  *c = (a2_coll_ctx){.P = P,
                     .C = C,
                     .root = root,
                     .N = N,
                     .B = P ? N / P : 0,
                     .vop = a2_reduce_opcode(p->op),
                     .E = a2_dtype_size(p->dtype),
                     .Q = p->dma_queues};
  a2_coll_set_piece(c, N, a2_coll_chunk_bytes(p->ub_bytes));
  if (a2_tb_begin(tb, k, P, C, err)) return tb->rc;
  snprintf(k->algo, sizeof k->algo, "%s", shape->algo);
  k->size_bytes = N;
  k->root = root;
  k->op = p->op;
  k->dtype = p->dtype;
  k->seed = p->seed;
  k->uses_dma = shape->dma;
  for (uint16_t i = 0; i < A2_COLL_MAX_SHAPE_BUFS && shape->bufs[i].name; i++) {
    const a2_coll_buf *b = &shape->bufs[i];
    uint64_t units = (uint64_t)((int64_t)b->per_rank * P + b->fixed);
    int signal = b->kind == A2_BUF_SIGNAL;
    uint64_t bytes = signal ? units * 4 * C : units * N;
    a2_init_kind init = i == 0 && b->kind == A2_BUF_TENSOR ? A2_INIT_PATTERN : A2_INIT_ZERO;
    if (a2_tb_buf(tb, b->name, b->kind, signal ? A2_INT32 : p->dtype, bytes, init) != i && !tb->rc)
      tb->rc = a2_err_set(err, A2_E_INTERNAL, NULL, 0, 0, "%s: buffer %s is not number %u",
                          shape->algo, b->name, i);
  }
  if (shape->nrecv) a2_tiles_declare(&c->tiles, tb, p->dtype, c->T, shape->nacc, shape->nrecv);
  if (shape->golden == A2_GOLDEN_NONE)
    k->golden = (a2_golden){A2_GOLDEN_NONE, p->op, 0, 0, 0, 0};
  else
    k->golden = (a2_golden){shape->golden, p->op, 0, 1, N, root};
  if (shape->more) shape->more(tb, p, c);
  return tb->rc;
}
