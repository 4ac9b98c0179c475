/* HCCL's hierarchical collectives (its hierarchical_comm_principle.md) and
 * NB, one generator for every row of A2_HIER_ROWS (generators.h). P ranks
 * are M servers of G; rank r = s * G + j is index j of server s. The
 * intra-server steps are meshes among a server's G ranks; the
 * inter-server step runs among the M ranks of one index j (one per
 * server) with the row's level algorithm (level_steps.c). Flat rows (NB)
 * are one level: G = 1, M = P.
 *   all-reduce (N a rank, b = N/P, C = N/G): stage x in `data`; mesh
 *     reduce-scatter in the server (rank j reduces chunk j, C bytes, in
 *     place); reduce-scatter of chunk j among the M ranks of index j
 *     (blocks of b; server s keeps block s), the block copied to `res`,
 *     all-gather of chunk j among them in `res`; mesh all-gather of the
 *     G chunks into y.
 *   three-level all-reduce (HCCL's levels 0, 1 and 2: servers of G ranks,
 *     super-nodes of M servers, M2 super-nodes; rank r = (s2 M + s1) G + j):
 *     as the all-reduce above, but the inter-server step is itself
 *     hierarchical: reduce-scatter of chunk j among the M ranks of index j
 *     in the super-node (blocks of M2 b; server s1 keeps block s1), then
 *     the all-reduce of block s1 among the M2 ranks of index (s1, j), one a
 *     super-node, with the level-2 algorithm (reduce-scatter in blocks of
 *     b, block s2 to `res`, all-gather), then the all-gather of chunk j
 *     among the M in `res`.
 *   reduce-scatter (N = output block; x holds P blocks): the inter-server
 *     reduce-scatter first, on server-sized chunks of G*N (server s keeps
 *     the blocks of its ranks, contiguous), then the mesh reduce-scatter
 *     in the server: rank j reduces block j of that chunk into y.
 *   all-gather (N a rank, y holds P*N): the mesh all-gather in the server
 *     into `data`, then the inter-server all-gather on chunks of G*N, then
 *     `data` to y.
 *   broadcast (N from --root, b = N/P, C = N/G; scatter + all-gather): the
 *     root's server ranks read chunk j from the root (`stage`), the other
 *     servers' rank j read block s of it from its server-mate of the
 *     root's server, all-gather of chunk j among the ranks of index j,
 *     mesh all-gather in the server into y.
 * Parts: allreduce_pipeline cuts the slice into A2_PIPELINE_SLICES equal
 * parts, one a vector core, each part's server reduce-scatter starting when
 * the previous part's ended; the other hierarchical all-reduces,
 * reduce-scatters and all-gathers take --cores C and run C parts at once,
 * one a core (the form of HCCL's AIV executors across servers, whose server
 * steps run on a server's worth of vector cores): an all-reduce's part is
 * whole groups of P elements of the slice, a reduce-scatter's or
 * all-gather's the same whole elements of every rank's block (its
 * inter-server blocks are then G runs, one a rank of the server). A part
 * runs the steps above on its own bytes and its own signal cells.
 * Signal cells (per rank, per part): hier_cells below, as many as the
 * server, the super-node and the super-nodes have members, not P. */
#include <string.h>

#include "collectives/generators.h"

enum { X, Y, DATA, WIN2 }; /* WIN2: `res` (all-reduce) or `stage` (broadcast) */

#define ENUM(NAME, ...) I_##NAME,
enum { A2_HIER_ROWS(ENUM) NROWS };
#define ROW_ENTRY(NAME, OP, ALGO, FLAT, SLICES, THREE) {#NAME, OP, ALGO, FLAT, SLICES, THREE},
static const a2_hier_row rows[] = {A2_HIER_ROWS(ROW_ENTRY)};

const a2_hier_row *a2_hier_find(const char *name) {
  for (size_t i = 0; i < NROWS; i++)
    if (!strcmp(rows[i].name, name)) return &rows[i];
  return NULL;
}

uint32_t a2_server_size(const a2_coll_params *p) {
  return p->group && p->group < p->nranks ? p->group : p->nranks;
}

uint32_t a2_hier_group(const a2_hier_row *h, const a2_coll_params *p) {
  if (h->flat) return 1;
  if (h->three && p->node) return p->node;
  return a2_server_size(p);
}

/* The servers of a super-node (level 1's members) and the super-nodes
 * (level 2's) of a three-level row: without a node level (p->node = 0) its
 * servers are a2_server_size's and every server is in one super-node, so
 * that the row is its two-level one. Two-level rows: M1 = P / G, M2 = 1. */
static void hier_levels(const a2_hier_row *h, const a2_coll_params *p, uint32_t *M1, uint32_t *M2) {
  uint32_t P = p->nranks, G = a2_hier_group(h, p), SN = h->three && p->node ? a2_server_size(p) : P;
  *M1 = G ? SN / G : 0;
  *M2 = SN ? P / SN : 0;
}

/* Level 2 of a three-level row among n super-nodes: HCCL's default when
 * level 2 is not configured (HCCL_ALGO, docs/sources.md) is Ring below 8
 * super-nodes that are not a power of two and RHD otherwise; RHD here runs
 * on a power of two only, so any other count takes Ring. */
a2_level_algo a2_hier_level2(uint32_t n) {
  return n && !(n & (n - 1)) ? A2_LVL_RHD : A2_LVL_RING;
}

a2_code a2_check_whole_servers(const char *name, const a2_coll_params *p, uint32_t G, a2_err *err) {
  if (G && p->nranks % G == 0) return A2_OK;
  return a2_err_set(err, A2_E_INPUT, "--ranks", 0, 0,
                    "%s: %u ranks are not whole servers of %u ranks "
                    "(interconnect.group_size, or a group of interconnect.levels); "
                    "expected a multiple of %u",
                    name, p->nranks, G, G);
}

/* A part's signal cells, offsets from its first (body): the two server
 * barriers (G each), the reduce-scatter and all-gather steps of level 1 (M
 * each) and of level 2 (M2 each), "the previous part left the server
 * step", the broadcast's "staged" and its inter-server scatter. */
typedef struct {
  uint64_t barrier_a, barrier_b, rs, ag, rs2, ag2, prev_done, staged, scattered, per_part;
} hier_cells;

static hier_cells hier_cells_of(uint32_t G, uint32_t M, uint32_t M2) {
  hier_cells k = {.barrier_a = 0, .barrier_b = G};
  k.rs = 2ull * G;
  k.ag = k.rs + M;
  k.rs2 = k.ag + M;
  k.ag2 = k.rs2 + M2;
  k.prev_done = k.ag2 + M2;
  k.staged = k.prev_done + 1;
  k.scattered = k.staged + 1;
  k.per_part = k.scattered + 1;
  return k;
}

typedef struct {
  a2_coll_ctx c;
  a2_hier_op op;
  a2_level_algo algo, algo2; /* levels 1 and 2 */
  uint32_t G, M, M2, S;      /* M: servers of a super-node, M2: super-nodes; S: parts, one a core */
  hier_cells cells;
  int pipelined;  /* a part's server step waits for the previous part's */
  uint64_t b, C;  /* the inter-server block and the intra-server chunk (of a part) */
  uint64_t total; /* --size: the parts' bytes together */
  uint16_t sig;
} hier_ctx;

/* The parts of a multi-core row: S of whole groups of P elements,
 * ceil(groups / S) groups a part, the last shorter (parts past the end are
 * empty); S = 1: one part of N. A pipeline's check asks N in S P
 * elements, so its parts are equal. */
static int hier_multi_core(const a2_hier_row *h) {
  return h->op != A2_HIER_BROADCAST && !h->flat && h->slices == 1;
}
static uint32_t hier_parts(const a2_hier_row *h, const a2_coll_params *p) {
  if (h->slices > 1) return h->slices;
  return hier_multi_core(h) && p->cores > 1 ? p->cores : 1;
}
static uint64_t hier_part_bytes(const a2_hier_row *h, const a2_coll_params *p, uint32_t S) {
  uint64_t g = (uint64_t)a2_dtype_size(p->dtype) * (h->op == A2_HIER_ALLREDUCE ? p->nranks : 1),
           groups = g ? p->size_bytes / g : 0;
  return S > 1 ? (groups + S - 1) / S * g : p->size_bytes;
}

/* ---- declaration ---- */

static a2_code hier_declare(a2_tb *tb, const a2_coll_params *p, a2_program *k, void *ctx,
                            a2_err *err, const a2_hier_row *h) {
  hier_ctx *x = ctx;
  a2_coll_shape sh = {.algo = h->name}; /* tiles: below, of the block size */
  uint32_t G = a2_hier_group(h, p), P = p->nranks, M, M2;
  hier_levels(h, p, &M, &M2);
  hier_cells cells = hier_cells_of(G, M, M2);
  a2_coll_buf sig = {"signal", A2_BUF_SIGNAL, .fixed = (int32_t)cells.per_part};
  switch (h->op) {
  case A2_HIER_ALLREDUCE:
    sh.golden = A2_GOLDEN_ALLREDUCE;
    sh.bufs[X] = (a2_coll_buf){"x", A2_BUF_TENSOR, .fixed = 1};
    sh.bufs[Y] = (a2_coll_buf){"y", A2_BUF_TENSOR, .fixed = 1};
    sh.bufs[DATA] = (a2_coll_buf){"data", A2_BUF_WINDOW, .fixed = 1};
    sh.bufs[WIN2] = (a2_coll_buf){"res", A2_BUF_WINDOW, .fixed = 1};
    sh.bufs[WIN2 + 1] = sig;
    x->sig = WIN2 + 1;
    break;
  case A2_HIER_BROADCAST:
    sh.golden = A2_GOLDEN_BROADCAST;
    sh.rooted = true;
    sh.bufs[X] = (a2_coll_buf){"x", A2_BUF_TENSOR, .fixed = 1};
    sh.bufs[Y] = (a2_coll_buf){"y", A2_BUF_TENSOR, .fixed = 1};
    sh.bufs[DATA] = (a2_coll_buf){"data", A2_BUF_WINDOW, .fixed = 1};
    sh.bufs[WIN2] = (a2_coll_buf){"stage", A2_BUF_WINDOW, .fixed = 1};
    sh.bufs[WIN2 + 1] = sig;
    x->sig = WIN2 + 1;
    break;
  case A2_HIER_REDUCE_SCATTER:
    sh.golden = A2_GOLDEN_REDUCE_SCATTER;
    sh.bufs[X] = (a2_coll_buf){"x", A2_BUF_TENSOR, .per_rank = 1};
    sh.bufs[Y] = (a2_coll_buf){"y", A2_BUF_TENSOR, .fixed = 1};
    sh.bufs[DATA] = (a2_coll_buf){"data", A2_BUF_WINDOW, .per_rank = 1};
    sh.bufs[WIN2] = sig;
    x->sig = WIN2;
    break;
  case A2_HIER_ALLGATHER:
    sh.golden = A2_GOLDEN_ALLGATHER;
    sh.bufs[X] = (a2_coll_buf){"x", A2_BUF_TENSOR, .fixed = 1};
    sh.bufs[Y] = (a2_coll_buf){"y", A2_BUF_TENSOR, .per_rank = 1};
    sh.bufs[DATA] = (a2_coll_buf){"data", A2_BUF_WINDOW, .per_rank = 1};
    sh.bufs[WIN2] = sig;
    x->sig = WIN2;
    break;
  }
  uint16_t s = x->sig;
  a2_coll_params q = *p;
  uint32_t S = hier_parts(h, p);
  sh.multi_core = S > 1;
  q.cores = S; /* one core a part */
  a2_code rc = a2_coll_declare(tb, &q, k, &sh, &x->c, err);
  x->sig = s; /* a2_coll_declare zeroes the context it fills (the first member only) */
  x->op = h->op;
  x->algo = h->algo;
  x->algo2 = a2_hier_level2(M2);
  x->G = G;
  x->M = M;
  x->M2 = M2;
  x->cells = cells;
  x->S = S;
  x->pipelined = h->slices > 1;
  x->total = p->size_bytes;
  uint64_t N = hier_part_bytes(h, p, S);
  if (h->op == A2_HIER_ALLREDUCE || h->op == A2_HIER_BROADCAST) {
    x->b = P ? N / P : 0;
    x->C = G ? N / G : 0;
  } else {
    x->b = (uint64_t)G * N;
    x->C = N;
  }
  /* an all-reduce moves pieces of the server chunk N / G (up to the tile
   * size), as HCCL's server step moves the chunk: its level steps then move
   * each block of up to a tile as one piece; the other rows, pieces of
   * their smallest block */
  uint64_t unit = h->op == A2_HIER_ALLREDUCE && !h->flat                     ? x->C
                  : h->op == A2_HIER_ALLREDUCE || h->op == A2_HIER_BROADCAST ? x->b
                                                                             : N;
  a2_coll_set_piece(&x->c, unit, a2_coll_chunk_bytes(p->ub_bytes));
  x->c.N = N; /* a part's */
  if (rc == A2_OK && tb->rc == A2_OK)
    a2_tiles_declare(&x->c.tiles, tb, p->dtype, x->c.T ? x->c.T : 4, 1, 2);
  return rc ? rc : tb->rc;
}

/* ---- the intra-server meshes ---- */

/* Barrier among the server's G ranks on cells base + j. */
static void server_barrier(a2_tb *tb, const a2_group *srv, uint16_t sig, uint64_t base) {
  uint64_t n = srv->n - 1;
  A2_STEPS(tb, s, 2 * n) {
    uint32_t q = (uint32_t)((srv->i + 1 + s % n) % srv->n);
    if (s < n)
      a2_tb_notify(tb, sig, a2_member(srv, q), base + srv->i, A2_MODE_ADD, 1);
    else
      a2_tb_wait(tb, sig, base + q, A2_MODE_GE, 1);
  }
}

/* dst = own win[off, off+len) reduced with every server peer's, pieces of
 * T: load the own piece, add each peer's (j+1, j+2, ...), store. */
static void server_reduce(a2_tiles *t, const hier_ctx *x, const a2_group *srv, uint16_t win,
                          uint64_t off, uint64_t len, a2_at dst) {
  uint64_t T = x->c.T, np = a2_pieces(len, T), per = (uint64_t)srv->n + 1;
  uint16_t acc = x->c.tiles.acc[0];
  A2_STEPS(t->tb, s, np * per) {
    uint64_t i = s / per, k = s % per, o = i * T, n = a2_min64(len - o, T);
    if (k == 0) {
      a2_tb_load(t->tb, acc, win, off + o, n);
    } else if (k < srv->n) {
      uint16_t recv = a2_recv_tile(t, k - 1);
      a2_tb_rload(t->tb, recv, win, a2_member(srv, (int64_t)srv->i + (int64_t)k), off + o, n);
      a2_tb_vop(t->tb, x->c.vop, acc, acc, recv, n);
    } else {
      a2_tb_store(t->tb, acc, dst.buf, dst.off + o, n);
    }
  }
}

/* Every server peer q's win[q*stride + skew, +len) into dst[q*stride +
 * dst_skew] (peers j+1, j+2, ...). One phase of a step per piece of each
 * peer's chunk, so that a walk resuming in it skips what is done at once
 * (not peer by peer: a server of a thousand ranks would walk a thousand
 * phases a batch). */
static void server_gather(a2_tiles *t, const hier_ctx *x, const a2_group *srv, uint16_t win,
                          uint64_t skew, uint64_t len, uint64_t stride, uint16_t dst,
                          uint64_t dst_skew) {
  uint64_t T = x->c.T, np = a2_pieces(len, T), turn = t->turn;
  t->turn += (uint64_t)(srv->n - 1) * np;
  A2_STEPS(t->tb, s, (uint64_t)(srv->n - 1) * np) {
    uint32_t q = (uint32_t)((srv->i + 1 + s / np) % srv->n);
    uint64_t off = s % np * T;
    a2_at to = a2_at_local(dst, dst_skew + (uint64_t)q * stride);
    a2_coll_copy_piece(t, turn + s, a2_at_peer(win, a2_member(srv, q), skew + (uint64_t)q * stride),
                       &to, 1, off, a2_min64(len - off, T));
  }
}

static void copy(a2_tiles *t, const hier_ctx *x, a2_at src, a2_at dst, uint64_t len) {
  a2_coll_copy(t, src, &dst, 1, len, x->c.T);
}

/* Block 0 of `k` (its runs) from own src to the same bytes of dst, each
 * run in pieces of T, run after run. */
static void copy_runs(a2_tiles *t, const hier_ctx *x, uint16_t src, uint16_t dst,
                      const a2_blocks *k) {
  uint64_t T = x->c.T, np = a2_pieces(k->len, T), turn = t->turn;
  t->turn += k->runs * np;
  A2_STEPS(t->tb, s, k->runs * np) {
    uint64_t o = k->R + s / np * k->run_stride, at = s % np * T;
    a2_at to = a2_at_local(dst, o);
    a2_coll_copy_piece(t, turn + s, a2_at_local(src, o), &to, 1, at, a2_min64(k->len - at, T));
  }
}

static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const hier_ctx *x = ctx;
  uint32_t P = x->c.P, G = x->G, M = x->M, s = me / G, j = me % G, s1 = s % M, s2 = s / M;
  uint64_t N = x->c.N, b = x->b, C = x->C;
  /* a part's bytes: [O, O + N) of the all-reduce's slice, or of each rank's
   * block of Nr for the reduce-scatter and all-gather */
  uint64_t O = (uint64_t)core * N, Nr = x->total;
  if (x->S > 1) { /* the last part may be shorter, or empty */
    if (O >= x->total) return;
    N = a2_min64(N, x->total - O);
    b = N / P;
    C = N / G;
  }
  /* level 1: index j of the servers of this super-node (all of them in
   * a two-level row, M2 = 1); level 2: index (s1, j) of the super-nodes */
  a2_group srv = {s * G, 1, G, j}, lvl = {s2 * M * G + j, G, M, s1},
           lvl2 = {s1 * G + j, M * G, x->M2, s2};
  uint16_t sig = x->sig;
  const hier_cells *k = &x->cells; /* a part's cells from core * k->per_part */
  uint64_t base = (uint64_t)core * k->per_part;
  uint64_t barrier_a = base + k->barrier_a, barrier_b = base + k->barrier_b,
           rs_cells = base + k->rs, ag_cells = base + k->ag, prev_done = base + k->prev_done;
  a2_tiles t = a2_tiles_on(tb, &x->c.tiles);
  /* reduce-scatter and all-gather: the part's bytes of every rank's block,
   * and of each server's G blocks (the level's) */
  a2_blocks ranks = a2_blocks_runs(O, 0, P, Nr, N), servers = a2_blocks_runs(O, G * Nr, G, Nr, N);
  switch (x->op) {
  case A2_HIER_ALLREDUCE: {
    copy(&t, x, a2_at_local(X, O), a2_at_local(DATA, O), N);
    if (x->pipelined && core > 0 && P > 1) /* the previous part left the server step */
      A2_STEPS(tb, q, 1) a2_tb_wait(tb, sig, prev_done, A2_MODE_GE, 1);
    if (G > 1) {
      server_barrier(tb, &srv, sig, barrier_a);
      server_reduce(&t, x, &srv, DATA, O + j * C, C, a2_at_local(DATA, O + j * C));
    }
    if (x->pipelined && core + 1 < x->S && P > 1) A2_STEPS(tb, q, 1)
    a2_tb_notify(tb, sig, me, prev_done + k->per_part, A2_MODE_SET, 1);
    /* level 1 on blocks of b1 = M2 b (block s1 stays here), level 2 on
     * block s1's M2 blocks of b (block s2 stays here); the all-gathers in
     * reverse, in `res`. Two-level rows: b1 = b, and level 2 is empty. */
    uint64_t b1 = (uint64_t)x->M2 * b, mine = O + j * C + s1 * b1;
    a2_blocks chunk = a2_blocks_whole(O + j * C, b1), block = a2_blocks_whole(mine, b);
    a2_level_reduce_scatter(&t, &x->c, x->algo, &lvl, DATA, sig, rs_cells, &chunk);
    a2_level_reduce_scatter(&t, &x->c, x->algo2, &lvl2, DATA, sig, base + k->rs2, &block);
    copy(&t, x, a2_at_local(DATA, mine + s2 * b), a2_at_local(WIN2, mine + s2 * b), b);
    a2_level_all_gather(&t, &x->c, x->algo2, &lvl2, WIN2, sig, base + k->ag2, &block);
    a2_level_all_gather(&t, &x->c, x->algo, &lvl, WIN2, sig, ag_cells, &chunk);
    if (G > 1) server_barrier(tb, &srv, sig, barrier_b);
    copy(&t, x, a2_at_local(WIN2, O + j * C), a2_at_local(Y, O + j * C), C);
    server_gather(&t, x, &srv, WIN2, O, C, C, Y, O);
    break;
  }
  case A2_HIER_REDUCE_SCATTER:
    copy_runs(&t, x, X, DATA, &ranks);
    a2_level_reduce_scatter(&t, &x->c, x->algo, &lvl, DATA, sig, rs_cells, &servers);
    if (G > 1) server_barrier(tb, &srv, sig, barrier_a);
    server_reduce(&t, x, &srv, DATA, (uint64_t)me * Nr + O, N, a2_at_local(Y, O));
    break;
  case A2_HIER_ALLGATHER: {
    uint64_t mine = (uint64_t)s * G * Nr + O; /* the part's bytes of this server's first rank */
    copy(&t, x, a2_at_local(X, O), a2_at_local(DATA, (uint64_t)me * Nr + O), N);
    if (G > 1) {
      server_barrier(tb, &srv, sig, barrier_a);
      server_gather(&t, x, &srv, DATA, mine, N, Nr, DATA, mine);
    }
    a2_level_all_gather(&t, &x->c, x->algo, &lvl, DATA, sig, ag_cells, &servers);
    copy_runs(&t, x, DATA, Y, &ranks);
    break;
  }
  case A2_HIER_BROADCAST: {
    uint32_t root = x->c.root, s0 = root / G, j0 = root % G;
    uint64_t staged = k->staged, scattered = k->scattered;
    if (me == root) {
      a2_at dst[2] = {a2_at_local(WIN2, 0), a2_at_local(DATA, 0)};
      a2_coll_copy(&t, a2_at_local(X, 0), dst, 2, N, x->c.T);
    }
    if (s == s0 && G > 1) { /* the root's server: chunk j from the root */
      A2_STEPS(tb, q, me == root ? G - 1 : 1) {
        if (me == root)
          a2_tb_notify(tb, sig, a2_member(&srv, (int64_t)j0 + 1 + (int64_t)q), staged, A2_MODE_SET,
                       1);
        else
          a2_tb_wait(tb, sig, staged, A2_MODE_GE, 1);
      }
      if (me != root) {
        a2_at dst[2] = {a2_at_local(WIN2, j * C), a2_at_local(DATA, j * C)};
        a2_coll_copy(&t, a2_at_peer(WIN2, root, j * C), dst, 2, C, x->c.T);
      }
    }
    if (M > 1) { /* the other servers: block s of chunk j from the root's server */
      A2_STEPS(tb, q, s == s0 ? M - 1 : 1) {
        if (s == s0)
          a2_tb_notify(tb, sig, a2_member(&lvl, (int64_t)s0 + 1 + (int64_t)q), scattered,
                       A2_MODE_SET, 1);
        else
          a2_tb_wait(tb, sig, scattered, A2_MODE_GE, 1);
      }
      if (s != s0)
        copy(&t, x, a2_at_peer(WIN2, a2_member(&lvl, s0), j * C + s * b),
             a2_at_local(DATA, j * C + s * b), b);
    }
    a2_blocks chunk = a2_blocks_whole(j * C, b);
    a2_level_all_gather(&t, &x->c, x->algo, &lvl, DATA, sig, ag_cells, &chunk);
    if (G > 1) server_barrier(tb, &srv, sig, barrier_b);
    copy(&t, x, a2_at_local(DATA, j * C), a2_at_local(Y, j * C), C);
    server_gather(&t, x, &srv, DATA, 0, C, C, Y, 0);
    break;
  }
  }
}

/* ---- cards and checks ---- */

static void hier_card(const a2_hier_row *h, const a2_coll_params *p, a2_card *c) {
  /* the parts together move what one part of N would (a pipeline adds no
   * bytes; rounds are a core's) */
  uint32_t P = p->nranks, G = a2_hier_group(h, p), M, M2;
  hier_levels(h, p, &M, &M2);
  double N = (double)p->size_bytes, steps = a2_level_steps(h->algo, M), intra = G > 1,
         steps2 = a2_level_steps(a2_hier_level2(M2), M2);
  c->remote_write_bytes = 0;
  switch (h->op) {
  case A2_HIER_ALLREDUCE: /* level 1 moves blocks of M2 N / P, level 2 of N / P */
    c->remote_read_bytes =
        2.0 * (G - 1) * N / G + 2.0 * (M - 1) * M2 * N / P + 2.0 * (M2 - 1) * N / P;
    c->barrier_rounds = (uint64_t)(2 * intra + 2 * steps + 2 * steps2);
    break;
  case A2_HIER_REDUCE_SCATTER:
    c->remote_read_bytes = (double)(M - 1) * G * N + (double)(G - 1) * N;
    c->barrier_rounds = (uint64_t)(intra + steps);
    break;
  case A2_HIER_ALLGATHER:
    c->remote_read_bytes = (double)(G - 1) * N + (double)(M - 1) * G * N;
    c->barrier_rounds = (uint64_t)(intra + steps);
    break;
  case A2_HIER_BROADCAST:
    /* the busiest rank: a server-mate of the root (chunk from the root, the
     * all-gathers), or, one rank a server, any non-root */
    c->remote_read_bytes = P < 2 ? 0 : G > 1 ? N + (M - 1) * N / P : N;
    c->barrier_rounds = P < 2 ? 0 : (uint64_t)(1 + steps + intra);
    break;
  }
  if (P < 2) c->remote_read_bytes = 0;
}

/* --cores: the hierarchical all-reduces, reduce-scatters and all-gathers
 * run a part on each of C cores (1..the chip's); every other row takes one. */
static a2_code hier_check_cores(const a2_hier_row *h, const a2_coll_params *p, a2_err *err) {
  if (!hier_multi_core(h)) return a2_coll_check_single_core(p, err);
  return a2_coll_check_cores(p, err);
}

static a2_code hier_check(const a2_hier_row *h, const a2_coll_params *p, a2_err *err) {
  a2_code rc = hier_check_cores(h, p, err);
  if (!rc && h->op == A2_HIER_BROADCAST) rc = a2_coll_check_root(p, err);
  if (rc) return rc;
  uint32_t P = p->nranks, G = a2_hier_group(h, p);
  rc = a2_check_whole_servers(h->name, p, G, err);
  if (rc) return rc;
  uint32_t SN = a2_server_size(p), M, M2;
  if (h->three && p->node && P % SN)
    return a2_err_set(err, A2_E_INPUT, "--ranks", 0, 0,
                      "%s: %u ranks are not whole super-nodes of %u ranks (servers of %u); "
                      "expected a multiple of %u",
                      h->name, P, SN, G, SN);
  hier_levels(h, p, &M, &M2);
  if (h->algo == A2_LVL_RHD && (M & (M - 1)))
    return a2_err_set(err, A2_E_INPUT, "--ranks", 0, 0,
                      h->three ? "%s: %u servers in a super-node; recursive halving-doubling "
                                 "among them runs on a power of two of them"
                               : "%s: %u servers; recursive halving-doubling between servers "
                                 "runs on a power of two of them",
                      h->name, M);
  if (h->slices > 1) {
    if (p->max_cores && p->max_cores < h->slices)
      return a2_err_set(err, A2_E_INPUT, "--algo", 0, 0,
                        "%s runs its %u parts on %u vector cores; the chip has %u "
                        "(chip.vector_cores)",
                        h->name, h->slices, h->slices, p->max_cores);
    return a2_coll_check_multiple(p, (uint64_t)a2_dtype_size(p->dtype) * P * h->slices,
                                  "the slice is cut into parts, each into P blocks", err);
  }
  if (h->op == A2_HIER_ALLREDUCE || h->op == A2_HIER_BROADCAST) return a2_check_p_chunks(p, err);
  return a2_coll_check_elems(p, err);
}

#define DEFINE_ROW(NAME, ...)                                                                 \
  static a2_code declare_##NAME(a2_tb *tb, const a2_coll_params *p, a2_program *k, void *ctx, \
                                a2_err *err) {                                                \
    return hier_declare(tb, p, k, ctx, err, &rows[I_##NAME]);                                 \
  }                                                                                           \
  const a2_gen_def a2_def_##NAME = {sizeof(hier_ctx), declare_##NAME, body};                  \
  a2_code a2_gen_##NAME(const a2_coll_params *p, a2_program *k, a2_err *err) {                \
    return a2_gen_run(&a2_def_##NAME, p, k, 0, err);                                          \
  }                                                                                           \
  void a2_card_##NAME(const a2_coll_params *p, a2_card *c) {                                  \
    hier_card(&rows[I_##NAME], p, c);                                                         \
  }                                                                                           \
  a2_code a2_check_##NAME(const a2_coll_params *p, a2_err *err) {                             \
    return hier_check(&rows[I_##NAME], p, err);                                               \
  }
A2_HIER_ROWS(DEFINE_ROW)
