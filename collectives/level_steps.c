/* One level of a hierarchy: the reduce-scatter and all-gather of Ring,
 * RHD, NHR and NB over a group of member ranks (generators.h, a2_group).
 * Member i, n members, indices modulo n, d = 2^s:
 *   Ring  reduce-scatter step k: block i - k - 2 from i - 1, added;
 *         all-gather step k: block i - 1 - k from i - 1.
 *   RHD   (n = 2^K) halving step j, h = n / 2^(j+1): with partner i ^ h,
 *         keep the h blocks of the segment picked by i & h, add the
 *         partner's; doubling in reverse: the partner's h blocks.
 *   NHR   reduce-scatter step s: from i + d the blocks i - 2dk,
 *         k < floor((n - 1 + d) / 2d), added; all-gather step s with
 *         d = 2^(K-1-s): from i - d the blocks i - d - 2dk.
 *   NB    reduce-scatter step s: from i - d the blocks i + 2dk (the same
 *         counts, the other direction: each member sends to i + d);
 *         all-gather (Bruck) step s: from i + d its min(d, n - d) blocks
 *         i + d, i + d + 1, ...: 1, 2, 4, ... blocks, the last step
 *         n - 2^floor(log2 n) when n is not a power of two.
 * In every step the blocks a member writes are not the ones its reader
 * reads in that step or a later one, so one notify per step orders every
 * read (docs/collectives.md). */
#include "collectives/generators.h"

uint32_t a2_level_steps(a2_level_algo a, uint32_t n) {
  if (n < 2) return 0;
  if (a == A2_LVL_RING) return n - 1;
  return a2_nhr_steps(n); /* RHD at n = 2^K: K = ceil(log2 n) too */
}

static int64_t wrap(int64_t a, int64_t n) {
  int64_t m = a % n;
  return m < 0 ? m + n : m;
}

/* Pieces of one block: each run's, run after run. */
static uint64_t block_pieces(const a2_blocks *k, uint64_t T) {
  return (uint64_t)k->runs * a2_pieces(k->len, T);
}

/* count blocks, block q = first + step * q (mod n), from `peer`'s window:
 * one step per piece, each read into the next receive tile; reduce: added
 * into the own block, else stored there. */
static void xfer_step(a2_tiles *t, const a2_coll_ctx *c, const a2_group *g, uint16_t win,
                      uint32_t peer, const a2_blocks *k, int64_t first, int64_t step, uint64_t np,
                      uint64_t s, int reduce) {
  uint64_t T = c->T, q = s / np, pr = a2_pieces(k->len, T), run = s % np / pr, j = s % np % pr;
  uint16_t acc = c->tiles.acc[0];
  uint64_t off =
      k->R + (uint64_t)wrap(first + step * (int64_t)q, g->n) * k->b + run * k->run_stride + j * T;
  uint64_t len = a2_min64(k->len - j * T, T);
  uint16_t recv = a2_recv_tile(t, s);
  a2_tb_rload(t->tb, recv, win, peer, off, len);
  if (reduce) {
    a2_tb_load(t->tb, acc, win, off, len);
    a2_tb_vop(t->tb, c->vop, acc, acc, recv, len);
    a2_tb_store(t->tb, acc, win, off, len);
  } else {
    a2_tb_store(t->tb, recv, win, off, len);
  }
}

static void xfer(a2_tiles *t, const a2_coll_ctx *c, const a2_group *g, uint16_t win, uint32_t peer,
                 const a2_blocks *k, int64_t first, int64_t step, uint32_t count, int reduce) {
  uint64_t np = block_pieces(k, c->T);
  A2_STEPS(t->tb, s, (uint64_t)count * np) {
    xfer_step(t, c, g, win, peer, k, first, step, np, s, reduce);
  }
}

/* Tell `reader` it may read this step, then wait for the member read from. */
static void signal_step(a2_tb *tb, uint16_t sig, uint32_t reader, uint64_t cell) {
  A2_STEPS(tb, s, 2) {
    if (s == 0)
      a2_tb_notify(tb, sig, reader, cell, A2_MODE_SET, 1);
    else
      a2_tb_wait(tb, sig, cell, A2_MODE_GE, 1);
  }
}

static void phase(a2_tiles *t, const a2_coll_ctx *c, a2_level_algo a, const a2_group *g,
                  uint16_t win, uint16_t sig, uint64_t cell0, const a2_blocks *k, int rs) {
  int64_t i = g->i, n = g->n;
  uint32_t K = a2_level_steps(a, g->n);
  if (a == A2_LVL_RING) { /* n - 1 steps: one phase (builder.h), each step as below */
    if (!K) return;
    uint64_t np = block_pieces(k, c->T), per = np + 2;
    uint32_t right = a2_member(g, i + 1), left = a2_member(g, i - 1);
    A2_STEPS(t->tb, q, (uint64_t)K * per) {
      uint64_t s = q / per, j = q % per;
      if (j == 0)
        a2_tb_notify(t->tb, sig, right, cell0 + s, A2_MODE_SET, 1);
      else if (j == 1)
        a2_tb_wait(t->tb, sig, cell0 + s, A2_MODE_GE, 1);
      else
        xfer_step(t, c, g, win, left, k, rs ? i - (int64_t)s - 2 : i - 1 - (int64_t)s, 1, np, j - 2,
                  rs);
    }
    return;
  }
  for (uint32_t s = 0; s < K; s++) {
    uint64_t cell = cell0 + s;
    if (a == A2_LVL_RHD) {
      uint32_t j = rs ? s : K - 1 - s;
      int64_t h = n >> (j + 1), w = i ^ h, lo = i & ~(2 * h - 1);
      signal_step(t->tb, sig, a2_member(g, w), cell);
      xfer(t, c, g, win, a2_member(g, w), k, lo + ((rs ? i : w) & h), 1, (uint32_t)h, rs);
    } else if (a == A2_LVL_NHR) {
      int64_t d = 1ll << (rs ? s : K - 1 - s);
      uint32_t cnt = (uint32_t)((n - 1 + d) / (2 * d));
      if (rs) {
        signal_step(t->tb, sig, a2_member(g, i - d), cell);
        xfer(t, c, g, win, a2_member(g, i + d), k, i, -2 * d, cnt, 1);
      } else {
        signal_step(t->tb, sig, a2_member(g, i + d), cell);
        xfer(t, c, g, win, a2_member(g, i - d), k, i - d, -2 * d, cnt, 0);
      }
    } else { /* NB */
      int64_t d = 1ll << s;
      if (rs) {
        uint32_t cnt = (uint32_t)((n - 1 + d) / (2 * d));
        signal_step(t->tb, sig, a2_member(g, i + d), cell);
        xfer(t, c, g, win, a2_member(g, i - d), k, i, 2 * d, cnt, 1);
      } else {
        uint32_t cnt = (uint32_t)(d < n - d ? d : n - d);
        signal_step(t->tb, sig, a2_member(g, i - d), cell);
        xfer(t, c, g, win, a2_member(g, i + d), k, i + d, 1, cnt, 0);
      }
    }
  }
}

void a2_level_reduce_scatter(a2_tiles *t, const a2_coll_ctx *c, a2_level_algo a, const a2_group *g,
                             uint16_t win, uint16_t sig, uint64_t cell0, const a2_blocks *k) {
  phase(t, c, a, g, win, sig, cell0, k, 1);
}

void a2_level_all_gather(a2_tiles *t, const a2_coll_ctx *c, a2_level_algo a, const a2_group *g,
                         uint16_t win, uint16_t sig, uint64_t cell0, const a2_blocks *k) {
  phase(t, c, a, g, win, sig, cell0, k, 0);
}
