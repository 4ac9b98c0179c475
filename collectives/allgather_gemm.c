/* All-gather + GEMM fused in one program, the design of pto-isa's
 * allgather_gemm (docs/collectives.md, "allgather_gemm"): rank r holds an
 * M-row slice A_r of A and every rank computes C = [A_0; ...; A_{P-1}] x B_r
 * (P M x N), so that the gather overlaps the GEMM:
 *
 *   shape   M (rows per rank) x K x N (--m --k --n; --size is M without
 *           --m; K 256, N 512 by default), fp16 in, fp32 accumulation, fp16
 *           out, the tiling of collectives/gemm_tiling.h
 *   vector v  of V (--comm-cores), as pto-isa's communication kernel
 *           (TPUT): with V >= P - 1, V / (P - 1) cores per peer (peers me +
 *           1, me + 2, ...), each a contiguous share of the slice's row
 *           blocks (128 rows x K); with fewer, the (peer, row block) items
 *           v, v + V, ... in peer order. A row block goes as 64 KiB pieces
 *           (128 x 256 fp16), each loaded into the ping or pong UB tile and
 *           remote-stored into the peer's window ag, then notify got[me mt +
 *           cb] at that peer (a notify drains the core: the stores are in)
 *   cube b  of C (--compute-cores): the local rows first, straight from a
 *           (a contiguous zigzag range of the slice's tiles, as gemm), then
 *           the remote tiles in the order the chunks arrive - block cb of
 *           the ranks me - 1, me - 2, ... for cb = 0, 1, ..., the tiles of a
 *           chunk in column order - dealt round-robin to the cube cores
 *           (tile i to core i % C); before a remote tile's loads, wait
 *           got[q mt + cb] >= 1
 *
 * C's row blocks are the ranks' slices in rank order. The golden is
 * allgather_gemm: rows q M .. q M + M - 1 of c[r] = A_q x B_r. The
 * compute-only side (overlap card) reads ag unfilled and is not checked,
 * like the comm-only side. */
#include <stdio.h>

#include "collectives/gemm_tiling.h"
#include "collectives/generators.h"

enum { A, B, CBUF, AG, GOT };

typedef struct {
  a2_gemm_shape s;
  uint32_t P, C, V, part;
  uint64_t T, R, te, blk; /* local tiles, remote tiles, C tile bytes, A row-block bytes */
  a2_gemm_tiles g;
  uint16_t ping, pong; /* a vector core's UB tiles for its pieces */
} agg_ctx;

/* A piece of a row block: pto-isa's 128 x 256 fp16 tile. */
#define PIECE ((uint64_t)A2_GEMM_BM * 256 * 2)

static a2_code declare(a2_tb *tb, const a2_coll_params *p, a2_program *k, void *ctx, a2_err *err) {
  agg_ctx *c = ctx;
  *c = (agg_ctx){.s = a2_gemm_shape_of(p),
                 .P = p->nranks,
                 .C = a2_gemm_compute_cores(p),
                 .V = a2_gemm_comm_cores(p),
                 .part = p->part};
  uint64_t M = c->s.m, K = c->s.k, N = c->s.n, P = c->P;
  c->T = (uint64_t)c->s.mt * c->s.nt;
  c->R = (P - 1) * c->T;
  c->te = (uint64_t)A2_GEMM_BM * A2_GEMM_BN * 2;
  c->blk = (uint64_t)A2_GEMM_BM * K * 2;
  if (a2_tb_begin(tb, k, c->P, c->V + c->C, err)) return tb->rc;
  k->ncube = c->C;
  snprintf(k->algo, sizeof k->algo, "%s", "allgather_gemm");
  k->size_bytes = M;
  k->op = A2_RED_SUM;
  k->dtype = A2_FP16;
  k->seed = p->seed;
  k->uses_rstore = 1;
  a2_tb_buf(tb, "a", A2_BUF_TENSOR, A2_FP16, M * K * 2, A2_INIT_PATTERN);
  a2_tb_buf(tb, "b", A2_BUF_TENSOR, A2_FP16, K * N * 2, A2_INIT_PATTERN);
  a2_tb_buf(tb, "c", A2_BUF_TENSOR, A2_FP16, P * M * N * 2, A2_INIT_ZERO);
  a2_tb_buf(tb, "ag", A2_BUF_WINDOW, A2_FP16, P * M * K * 2, A2_INIT_ZERO);
  a2_tb_buf(tb, "got", A2_BUF_SIGNAL, A2_INT32, P * c->s.mt * 4, A2_INIT_ZERO);
  a2_gemm_declare_tiles(tb, &c->g);
  c->ping = a2_tb_tile(tb, "ping", A2_FP16, PIECE);
  c->pong = a2_tb_tile(tb, "pong", A2_FP16, PIECE);
  if (c->part == A2_PART_WHOLE)
    k->golden = (a2_golden){A2_GOLDEN_ALLGATHER_GEMM, A2_RED_SUM, A, CBUF, P * M * N * 2, 0};
  else /* one side alone: the data is not what the golden wants */
    k->golden = (a2_golden){A2_GOLDEN_NONE, A2_RED_SUM, 0, 0, 0, 0};
  a2_gemm_golden_shape(k, &c->s, B, (uint32_t)M);
  return tb->rc;
}

static void vector_body(a2_tb *tb, const agg_ctx *c, uint32_t me, uint32_t v) {
  if (c->part == A2_PART_COMPUTE || c->P == 1) return;
  uint64_t peers = c->P - 1, mt = c->s.mt, kc = c->blk / PIECE;
  uint64_t slice = (uint64_t)c->s.m * c->s.k * 2;
  /* its items (peer index d, row block cb): a contiguous run of row blocks
   * of one peer, or every V-th item */
  uint64_t per = c->V >= peers ? c->V / peers : 0, first = 0, count = 0, stride = 1;
  if (per) {
    uint64_t d = v / per, share = (mt + per - 1) / per, lo = v % per * share;
    if (d < peers && lo < mt) {
      first = d * mt + lo;
      count = lo + share < mt ? share : mt - lo;
    }
  } else {
    first = v;
    count = v < peers * mt ? (peers * mt - v + c->V - 1) / c->V : 0;
    stride = c->V;
  }
  A2_STEPS(tb, s, count * (kc + 1)) {
    uint64_t item = first + s / (kc + 1) * stride, kb = s % (kc + 1), cb = item % mt;
    uint32_t q = (uint32_t)((me + 1 + item / mt) % c->P);
    if (kb == kc) { /* the row block is in: tell the peer */
      a2_tb_notify(tb, GOT, q, (uint64_t)me * mt + cb, A2_MODE_ADD, 1);
      continue;
    }
    uint64_t off = cb * c->blk + kb * PIECE;
    uint16_t t = kb % 2 ? c->pong : c->ping;
    a2_tb_load(tb, t, A, off, PIECE);
    a2_tb_rstore(tb, t, AG, q, me * slice + off, PIECE, 0);
  }
}

static void cube_body(a2_tb *tb, const agg_ctx *c, uint32_t me, uint32_t b) {
  if (c->part == A2_PART_COMM) return;
  uint64_t first, cnt, per = a2_gemm_tile_steps(&c->s);
  a2_gemm_range(c->T, c->C, b, &first, &cnt);
  uint64_t nr = b < c->R ? (c->R - b + c->C - 1) / c->C : 0;
  uint64_t slice = (uint64_t)c->s.m * c->s.k * 2, nt = c->s.nt, mt = c->s.mt;
  A2_STEPS(tb, s, (cnt + nr) * per) {
    uint64_t j = s / per, u = s % per, row, col, q = me;
    a2_gemm_tile_at at = {A, B, CBUF, 0, 0, 0, j};
    if (j < cnt) { /* local */
      a2_gemm_zigzag(first + j, c->s.nt, &row, &col);
      at.a_off = row * c->blk;
    } else { /* remote tile i: chunk i / nt = (block, source), column i % nt */
      uint64_t i = b + (j - cnt) * c->C, ch = i / nt, peers = c->P - 1;
      row = ch / peers;
      col = i % nt;
      q = (me + c->P - 1 - ch % peers) % c->P;
      at.abuf = AG;
      at.a_off = q * slice + row * c->blk;
      if (u == 0 && c->part == A2_PART_WHOLE) a2_tb_wait(tb, GOT, q * mt + row, A2_MODE_GE, 1);
    }
    at.col = col;
    at.c_off = ((q * mt + row) * nt + col) * c->te;
    a2_gemm_tile_step(tb, &c->s, &c->g, &at, u);
  }
}

static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const agg_ctx *c = ctx;
  if (core >= c->V)
    cube_body(tb, c, me, core - c->V);
  else
    vector_body(tb, c, me, core);
}

const a2_gen_def a2_def_allgather_gemm = {sizeof(agg_ctx), declare, body};

a2_code a2_gen_allgather_gemm(const a2_coll_params *p, a2_program *k, a2_err *err) {
  return a2_gen_run(&a2_def_allgather_gemm, p, k, 0, err);
}

a2_code a2_check_allgather_gemm(const a2_coll_params *p, a2_err *err) {
  return a2_gemm_check(p, "allgather_gemm", 1, err);
}

/* Per rank: its slice, M x K fp16, put to each of the P - 1 peers. The
 * rounds are the waits of the busiest cube core (core 0): one per remote
 * tile it computes. */
void a2_card_allgather_gemm(const a2_coll_params *p, a2_card *c) {
  a2_gemm_shape s = a2_gemm_shape_of(p);
  uint64_t P = p->nranks ? p->nranks : 1, C = a2_gemm_compute_cores(p);
  uint64_t R = (P - 1) * s.mt * s.nt;
  c->remote_read_bytes = 0;
  c->remote_write_bytes = (double)((P - 1) * s.m * s.k * 2);
  c->barrier_rounds = (R + C - 1) / C;
}

double a2_flops_allgather_gemm(const a2_coll_params *p) {
  a2_gemm_shape s = a2_gemm_shape_of(p);
  double P = p->nranks ? p->nranks : 1;
  return 2.0 * P * s.m * s.k * s.n * P;
}

uint64_t a2_out_bytes_allgather_gemm(const a2_coll_params *p) {
  a2_gemm_shape s = a2_gemm_shape_of(p);
  return a2_gemm_c_bytes(&s, (uint64_t)s.m * (p->nranks ? p->nranks : 1));
}
