/* HCCL's Pipeline all-gather and reduce-scatter (its Pipeline.md): the Ring
 * between servers, and, in every ring step, the block that step carries
 * moved inside the server at the same time, so that the server links and
 * the inter-server links work at once and only a rank's own column of
 * blocks crosses between servers. P ranks are M servers of G; rank
 * r = s * G + j is index j of server s; blocks are N bytes (a rank's input
 * for the all-gather, its output for the reduce-scatter), block (t, j) the
 * one of rank t * G + j, at byte (t * G + j) * N of `data` and y (x). Two
 * vector cores a rank: core 0 the ring among the M ranks of index j,
 * core 1 the server.
 *   all-gather: core 0 copies x to data and y at its own block, then in
 *     step k = 1..M-1 reads block (s - k, j) from the left neighbour
 *     (s - 1, j) into data and y; after each step (and after the copy) it
 *     tells every server-mate (cell j, +1) and the right neighbour (cell P,
 *     +1). Core 1, for k = 0..M-1: waits until every mate j' has its step-k
 *     block (cell j' >= k + 1), then reads block (s - k, j') from each into
 *     y.
 *   reduce-scatter: core 1 copies x to data, meets its server-mates (a
 *     barrier on cells [0, G)), then for k = 0..M-1 reduces the server's
 *     contributions to block (c_k, j), c_k = s - 1 - k, into data (its own
 *     and every mate's, read from their data), and tells core 0 (cell P,
 *     +1). Core 0: step 0 waits for the first, then tells the right
 *     neighbour (cell P + 1, +1); step k = 1..M-1 waits for contribution k
 *     and for the left neighbour's step k - 1, adds the neighbour's partial
 *     of block (c_k, j) to its own, and stores it to data (the last, block
 *     (s, j), to y), then tells the right neighbour.
 * Blocks a rank writes are written once each, and a mate or a neighbour
 * reads one only after the signal that follows its write; the two cores
 * write disjoint bytes. Indices are modulo M. */
#include "collectives/generators.h"

enum { X, Y, DATA, SIG };

typedef struct {
  a2_coll_ctx c;
  uint32_t G, M;
  int rs; /* the reduce-scatter; else the all-gather */
} pipe_ctx;

static a2_code pipe_declare(a2_tb *tb, const a2_coll_params *p, a2_program *k, void *ctx,
                            a2_err *err, int rs) {
  pipe_ctx *x = ctx;
  a2_coll_shape sh = {
      .algo = rs ? "reduce_scatter_pipeline" : "allgather_pipeline",
      .golden = rs ? A2_GOLDEN_REDUCE_SCATTER : A2_GOLDEN_ALLGATHER,
      .multi_core = true,
      .nacc = 1,
      .nrecv = 2,
      .bufs = {[X] = {"x", A2_BUF_TENSOR, .per_rank = rs, .fixed = !rs},
               [Y] = {"y", A2_BUF_TENSOR, .per_rank = !rs, .fixed = rs},
               [DATA] = {"data", A2_BUF_WINDOW, .per_rank = 1},
               [SIG] = {"signal", A2_BUF_SIGNAL, .per_rank = 1, .fixed = 2}},
  };
  a2_coll_params two = *p;
  two.cores = 2; /* the ring and the server, whatever --cores says (the check takes 1) */
  uint32_t G = a2_server_size(p);
  a2_code rc = a2_coll_declare(tb, &two, k, &sh, &x->c, err);
  x->G = G;
  x->M = G ? p->nranks / G : 0;
  x->rs = rs;
  return rc;
}

/* ---- all-gather ---- */

static void ag_ring(a2_tiles *t, const pipe_ctx *x, uint32_t s, uint32_t j) {
  a2_tb *tb = t->tb;
  uint32_t G = x->G, M = x->M, me = s * G + j;
  uint64_t N = x->c.N, T = x->c.T, np = x->c.np;
  a2_at own[2] = {a2_at_local(DATA, (uint64_t)me * N), a2_at_local(Y, (uint64_t)me * N)};
  a2_coll_copy(t, a2_at_local(X, 0), own, 2, N, T);
  /* step k: [wait, np pieces] (k > 0), then G - 1 mates and the right told */
  uint64_t per = 1 + np + G, turn = t->turn;
  a2_group ring = {j, G, M, s}; /* the ranks of index j, member t of server t */
  uint32_t left = a2_member(&ring, (int64_t)s - 1), right = a2_member(&ring, (int64_t)s + 1);
  A2_STEPS(tb, q, (uint64_t)M * per) {
    uint64_t k = q / per, i = q % per,
             off = (uint64_t)a2_member(&ring, (int64_t)s - (int64_t)k) * N;
    if (i == 0) {
      if (k > 0) a2_tb_wait(tb, SIG, (uint64_t)x->c.P, A2_MODE_GE, (int32_t)k);
    } else if (i <= np) {
      if (k > 0) {
        uint64_t o = (i - 1) * T;
        a2_at dst[2] = {a2_at_local(DATA, off), a2_at_local(Y, off)};
        a2_coll_copy_piece(t, turn + k * np + i - 1, a2_at_peer(DATA, left, off), dst, 2, o,
                           a2_min64(N - o, T));
      }
    } else if (i < per - 1) { /* mate j + 1, j + 2, ... */
      uint32_t mate = s * G + (uint32_t)((j + (i - np)) % G);
      a2_tb_notify(tb, SIG, mate, j, A2_MODE_ADD, 1);
    } else if (k + 1 < M) {
      a2_tb_notify(tb, SIG, right, (uint64_t)x->c.P, A2_MODE_ADD, 1);
    }
  }
}

static void ag_server(a2_tiles *t, const pipe_ctx *x, uint32_t s, uint32_t j) {
  a2_tb *tb = t->tb;
  uint32_t G = x->G, M = x->M;
  uint64_t N = x->c.N, T = x->c.T, np = x->c.np, mates = G - 1;
  if (!mates) return;
  /* step k: wait for every mate, then each mate's np pieces */
  uint64_t per = mates * (1 + np);
  A2_STEPS(tb, q, (uint64_t)M * per) {
    uint64_t k = q / per, i = q % per;
    uint64_t m = i < mates ? i : (i - mates) / np;
    uint32_t jm = (uint32_t)((j + 1 + m) % G);
    if (i < mates) {
      a2_tb_wait(tb, SIG, jm, A2_MODE_GE, (int32_t)(k + 1));
    } else {
      uint64_t piece = (i - mates) % np, o = piece * T;
      a2_group col = {jm, G, M, s};
      uint64_t off = (uint64_t)a2_member(&col, (int64_t)s - (int64_t)k) * N;
      a2_at dst = a2_at_local(Y, off);
      a2_coll_copy_piece(t, q, a2_at_peer(DATA, s * G + jm, off), &dst, 1, o, a2_min64(N - o, T));
    }
  }
}

/* ---- reduce-scatter ---- */

/* Cells [0, G): the server's barrier (rank j tells mate q at cell j). */
static void rs_server(a2_tiles *t, const pipe_ctx *x, uint32_t s, uint32_t j) {
  a2_tb *tb = t->tb;
  uint32_t G = x->G, M = x->M, P = x->c.P;
  uint64_t N = x->c.N, T = x->c.T, np = x->c.np, mates = G - 1;
  a2_at data = a2_at_local(DATA, 0);
  a2_coll_copy(t, a2_at_local(X, 0), &data, 1, (uint64_t)P * N, T);
  A2_STEPS(tb, q, 2 * mates) {
    uint32_t jm = (uint32_t)((j + 1 + q % mates) % G);
    if (q < mates)
      a2_tb_notify(tb, SIG, s * G + jm, j, A2_MODE_SET, 1);
    else
      a2_tb_wait(tb, SIG, jm, A2_MODE_GE, 1);
  }
  a2_group ring = {j, G, M, s}; /* the ranks of index j, member t of server t */
  /* step k: per piece, the own part, each mate's added, stored (none when
   * the rank is its server: its staged block is its part); then core 0 told */
  uint64_t per_piece = G > 1 || M == 1 ? G + 1 : 0, per = np * per_piece + 1;
  uint16_t acc = x->c.tiles.acc[0];
  A2_STEPS(tb, q, (uint64_t)M * per) {
    uint64_t k = q / per, i = q % per;
    uint64_t off = (uint64_t)a2_member(&ring, (int64_t)s - 1 - (int64_t)k) * N;
    if (i == per - 1) {
      if (M > 1) a2_tb_notify(tb, SIG, s * G + j, P, A2_MODE_ADD, 1);
      continue;
    }
    uint64_t piece = i / per_piece, e = i % per_piece, o = piece * T, n = a2_min64(N - o, T);
    if (e == 0) {
      a2_tb_load(tb, acc, DATA, off + o, n);
    } else if (e < G) {
      uint16_t recv = a2_recv_tile(t, e - 1);
      uint32_t jm = (uint32_t)((j + e) % G);
      a2_tb_rload(tb, recv, DATA, s * G + jm, off + o, n);
      a2_tb_vop(tb, x->c.vop, acc, acc, recv, n);
    } else {
      a2_tb_store(tb, acc, M == 1 ? Y : DATA, M == 1 ? o : off + o, n); /* M = 1: reduced */
    }
  }
}

static void rs_ring(a2_tiles *t, const pipe_ctx *x, uint32_t s, uint32_t j) {
  a2_tb *tb = t->tb;
  uint32_t G = x->G, M = x->M, P = x->c.P;
  uint64_t N = x->c.N, T = x->c.T, np = x->c.np;
  if (M < 2) return;
  a2_group ring = {j, G, M, s}; /* the ranks of index j, member t of server t */
  uint32_t left = a2_member(&ring, (int64_t)s - 1), right = a2_member(&ring, (int64_t)s + 1);
  /* step k: [wait for core 1, wait for the left, 4 a piece, tell the right] */
  uint64_t per = 2 + 4 * np + 1;
  uint16_t acc = x->c.tiles.acc[0];
  A2_STEPS(tb, q, (uint64_t)M * per) {
    uint64_t k = q / per, i = q % per;
    uint64_t off = (uint64_t)a2_member(&ring, (int64_t)s - 1 - (int64_t)k) * N;
    if (i == 0) {
      a2_tb_wait(tb, SIG, P, A2_MODE_GE, (int32_t)(k + 1));
    } else if (i == 1) {
      if (k > 0) a2_tb_wait(tb, SIG, P + 1, A2_MODE_GE, (int32_t)k);
    } else if (i < per - 1) {
      if (k == 0) continue;
      uint64_t piece = (i - 2) / 4, e = (i - 2) % 4, o = piece * T, n = a2_min64(N - o, T);
      uint16_t recv = a2_recv_tile(t, piece);
      if (e == 0)
        a2_tb_load(tb, acc, DATA, off + o, n);
      else if (e == 1)
        a2_tb_rload(tb, recv, DATA, left, off + o, n);
      else if (e == 2)
        a2_tb_vop(tb, x->c.vop, acc, acc, recv, n);
      else if (k + 1 < M)
        a2_tb_store(tb, acc, DATA, off + o, n);
      else
        a2_tb_store(tb, acc, Y, o, n);
    } else if (k + 1 < M) {
      a2_tb_notify(tb, SIG, right, P + 1, A2_MODE_ADD, 1);
    }
  }
}

static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const pipe_ctx *x = ctx;
  uint32_t s = me / x->G, j = me % x->G;
  a2_tiles t = a2_tiles_on(tb, &x->c.tiles);
  if (x->rs)
    (core == 0 ? rs_ring : rs_server)(&t, x, s, j);
  else
    (core == 0 ? ag_ring : ag_server)(&t, x, s, j);
}

/* ---- cards and checks ---- */

/* Per rank: the ring's M - 1 blocks and the server's (G - 1) M; rounds: the
 * busier core's (the all-gather's server core waits once a step). */
static void pipe_card(const a2_coll_params *p, a2_card *c, int rs) {
  uint32_t P = p->nranks, G = a2_server_size(p), M = G ? P / G : 0;
  c->remote_read_bytes = P < 2 ? 0 : (double)(P - 1) * (double)p->size_bytes;
  c->remote_write_bytes = 0;
  uint64_t ring = M - 1, server = G > 1 ? (rs ? 1 : M) : 0;
  c->barrier_rounds = P < 2 ? 0 : ring > server ? ring : server;
}

static a2_code pipe_check(const a2_coll_params *p, a2_err *err, const char *name) {
  a2_code rc = a2_coll_check_single_core(p, err);
  if (rc) return rc;
  rc = a2_check_whole_servers(name, p, a2_server_size(p), err);
  if (rc) return rc;
  if (p->max_cores && p->max_cores < 2)
    return a2_err_set(err, A2_E_INPUT, "--algo", 0, 0,
                      "%s runs its ring and its server steps on two vector cores; the chip has "
                      "%u (chip.vector_cores)",
                      name, p->max_cores);
  return a2_coll_check_elems(p, err);
}

#define DEFINE_PIPE(NAME, RS)                                                                 \
  static a2_code declare_##NAME(a2_tb *tb, const a2_coll_params *p, a2_program *k, void *ctx, \
                                a2_err *err) {                                                \
    return pipe_declare(tb, p, k, ctx, err, RS);                                              \
  }                                                                                           \
  const a2_gen_def a2_def_##NAME = {sizeof(pipe_ctx), declare_##NAME, body};                  \
  a2_code a2_gen_##NAME(const a2_coll_params *p, a2_program *k, a2_err *err) {                \
    return a2_gen_run(&a2_def_##NAME, p, k, 0, err);                                          \
  }                                                                                           \
  void a2_card_##NAME(const a2_coll_params *p, a2_card *c) {                                  \
    pipe_card(p, c, RS);                                                                      \
  }                                                                                           \
  a2_code a2_check_##NAME(const a2_coll_params *p, a2_err *err) {                             \
    return pipe_check(p, err, #NAME);                                                         \
  }
DEFINE_PIPE(allgather_pipeline, 0)
DEFINE_PIPE(reduce_scatter_pipeline, 1)
