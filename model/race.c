/* Happens-before race detection: see race.h for the clock rules and what is
 * kept.
 *
 * State per buffer of each rank: a directory of blocks of BLOCK_BYTES buffer
 * bytes, allocated when first touched. A block that accesses covered whole
 * points at one history; otherwise it has pages of PAGE_BYTES, each a sorted
 * array of disjoint regions (inline in the page's cache line while three fit),
 * each region pointing at a history: the accesses still candidates
 * for a race at its bytes, oldest first, each with what its check and its
 * report need (an epoch, as in FastTrack, and the instruction). A history is
 * reference-counted by the regions that share it; one held by a single
 * region is rewritten in place.
 *
 * An access [off, off+len) rewrites the history of each block it covers
 * whole, and walks the regions of the pages of the others in order and
 * rewrites each history it meets: every earlier access in it is counted when
 * it races, dropped when superseded, and the new access is appended. A
 * shared history is rewritten once per access (a memo maps it to its
 * rewrite, so a run of regions with one history costs one rewrite). Adjacent
 * regions whose histories hold the same accesses are merged, so the regions
 * follow the boundaries of the live accesses: memory follows the regions of
 * distinct history, time per access the regions it touches. */
#include "model/race.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define PAGE_SHIFT 10 /* pages: 1 KiB */
#define PAGE_BYTES (1u << PAGE_SHIFT)
#define BLOCK_SHIFT 16 /* blocks: 64 KiB, 64 pages */
#define BLOCK_BYTES (1u << BLOCK_SHIFT)
#define PAGES_PER_BLOCK (1u << (BLOCK_SHIFT - PAGE_SHIFT))
#define BLOCKS_PER_CHUNK 256 /* directory leaves: 16 MiB of buffer each */
#define SLAB_BYTES (64u << 10)
#define NCLASS 128        /* history sizes: 1..8 accesses, then steps of a quarter */
#define ALLOC_OVERHEAD 16 /* bytes malloc adds to each block, for the budget */

/* One access: what its check needs (the clock part) and what its report
 * and superseding need. */
typedef struct {
  uint64_t seq;      /* dispatch order among all accesses (from 1): identity */
  uint64_t off, len; /* its bytes of the buffer */
  uint64_t t_ps;     /* dispatch time */
  uint32_t gid, epoch;
  uint32_t line;
  uint8_t op, kind;
} entry;

/* The clock part of an access in a history: core and kind, epoch. */
typedef struct {
  uint32_t gk; /* gid << 2 | kind */
  uint32_t epoch;
} hot;

/* The rest. */
typedef struct {
  uint64_t seq, off, len, t_ps;
  uint32_t line;
  uint8_t op;
} cold;

/* The candidates of some bytes, oldest first: the header, then cap hot
 * parts (checked on every access: next to the header), then cap cold ones. */
typedef struct hist {
  uint32_t refs; /* regions (and the access in progress) pointing here */
  uint32_t n, cap;
  uint8_t cls; /* size class */
} hist;

static hot *hot_of(hist *h) {
  return (hot *)(h + 1);
}
static cold *cold_of(hist *h) {
  return (cold *)(hot_of(h) + h->cap);
}

typedef struct {
  uint32_t lo, hi; /* bytes within the page */
  hist *h;
} region;

/* A page's regions: inline while they fit (one cache line in all), else on
 * the heap. */
#define INLINE_REGIONS 3
typedef struct {
  uint32_t n, cap; /* regions; cap 0: inline */
  region *v;       /* cap > 0: the regions */
  region in[INLINE_REGIONS];
} page;

/* A block of buffer bytes: one history for all of it (uniform), or pages. */
typedef struct {
  hist *h;     /* pages NULL: the history of every byte (NULL: none touched) */
  page *pages; /* else PAGES_PER_BLOCK pages */
} block;

typedef struct {
  block **chunk; /* [nblocks / BLOCKS_PER_CHUNK], each BLOCKS_PER_CHUNK blocks or NULL */
  uint32_t nchunk;
} bufdir;

/* Free histories of one size (a stack of pointers: popping one reads no
 * cold line), and the rest of the slab being carved. */
typedef struct {
  hist **free;
  uint32_t nfree, cap;
  uint8_t *bump, *end;
} hclass;

typedef struct {
  entry a, b;
  uint32_t owner;
  uint16_t buf;
} race_pair;

/* Release clock of one signal cell, in an open-addressing table keyed by
 * (rank, buf, byte offset): only cells that were notified cost memory. */
typedef struct {
  uint64_t key; /* 0 = empty */
  uint32_t *vc;
} cell_slot;

/* The last access of one core to one buffer of a rank, for prefetching:
 * cores walk their buffers in strides (tiles), so the state the next
 * access will need is fetched ahead while this one is checked. */
#define STREAMS 32 /* per core, by buffer: rank * nbufs + buf modulo STREAMS */
typedef struct {
  uint32_t dir; /* rank * nbufs + buf, + 1; 0 = none */
  uint32_t pad;
  uint64_t off;
} stream;

#define DEFAULT_SHOWN 8
#define SNAPS_PER_SLAB 64

struct a2_race {
  const a2_program *k;
  uint32_t T;      /* cores in all */
  uint32_t *vc;    /* T x T: row t = core t's clock */
  bufdir *dirs;    /* [rank * nbufs + buf] */
  stream *streams; /* [gid * STREAMS + slot] */
  /* histories: size classes carved from slabs, freed only with the detector */
  uint32_t caps[NCLASS];
  hclass cls[NCLASS];
  void **hslabs;
  uint32_t nhslabs, hslab_cap;
  uint64_t seq;
  /* the access in progress */
  entry cur;
  const uint32_t *mine;     /* its core's clock */
  hist *memo_in, *memo_out; /* last shared history met and its rewrite (refs held) */
  hist *gap;                /* history of bytes never touched before: {cur} (ref held) */
  entry *hits;              /* earlier accesses racing it */
  uint32_t nhits, hits_cap;
  region *out; /* a page's regions being rebuilt */
  uint32_t out_cap;
  bool failed; /* an allocation failed */
  /* results */
  uint64_t count;
  race_pair *shown;
  uint32_t nshown, shown_cap, show_limit;
  /* signal cells */
  cell_slot *cells;
  uint64_t ncells, cells_cap;
  /* Clock snapshots come from slabs and go back to a free list, so notifies
   * still in flight when a run stops are not leaked. */
  uint32_t **slabs;
  uint32_t nslabs, slab_cap;
  uint32_t *free_snaps; /* first word of a free snapshot links to the next */
  /* memory held, against the budget */
  uint64_t bytes, budget;
  uint64_t last_ps; /* dispatch time of the last access checked */
  bool abandoned;
  uint64_t abandoned_ps;
};

static void charge(a2_race *r, uint64_t n) {
  r->bytes += n;
}

/* Stop checking (out of memory, or past the budget). The state is dropped
 * only with the detector: everything it allocated is in slabs, pages and
 * tables that a2_race_free releases whatever their contents. */
static void abandon(a2_race *r) {
  if (r->abandoned) return;
  r->abandoned = true;
  r->abandoned_ps = r->last_ps;
}

static void check_budget(a2_race *r) {
  if (r->bytes > r->budget) abandon(r);
}

/* Grow *v (of *cap elements of `size` bytes) to hold at least `need`. */
static bool grow(a2_race *r, void **v, uint32_t *cap, uint32_t need, size_t size) {
  if (need <= *cap) return true;
  uint32_t c = *cap ? *cap : 4;
  while (c < need) c *= 2;
  void *p = realloc(*v, (size_t)c * size);
  if (!p) {
    r->failed = true;
    return false;
  }
  charge(r, (uint64_t)(c - *cap) * size);
  *v = p;
  *cap = c;
  return true;
}

/* ---- histories ---- */

static size_t hist_size(uint32_t cap) {
  return sizeof(hist) + (size_t)cap * (sizeof(hot) + sizeof(cold));
}

/* A history with room for `need` accesses (n and refs 0), or NULL. */
static hist *hist_new(a2_race *r, uint32_t need) {
  uint32_t c = 0;
  while (r->caps[c] < need) c++; /* the table reaches UINT32_MAX */
  hclass *k = &r->cls[c];
  hist *h;
  if (k->nfree) {
    h = k->free[--k->nfree];
  } else {
    size_t size = hist_size(r->caps[c]);
    if (!k->bump || (size_t)(k->end - k->bump) < size) {
      size_t slab = size > SLAB_BYTES ? size : SLAB_BYTES;
      if (!grow(r, (void **)&r->hslabs, &r->hslab_cap, r->nhslabs + 1, sizeof *r->hslabs))
        return NULL;
      uint8_t *m = malloc(slab);
      if (!m) {
        r->failed = true;
        return NULL;
      }
      charge(r, slab + ALLOC_OVERHEAD);
      r->hslabs[r->nhslabs++] = m;
      k->bump = m;
      k->end = m + slab;
    }
    h = (hist *)k->bump;
    k->bump += size;
  }
  h->refs = h->n = 0;
  h->cap = r->caps[c];
  h->cls = (uint8_t)c;
  return h;
}

static void hist_unref(a2_race *r, hist *h) {
  if (!h || --h->refs) return;
  hclass *k = &r->cls[h->cls];
  if (k->nfree == k->cap) {
    uint32_t cap = k->cap ? 2 * k->cap : 64;
    hist **v = realloc(k->free, cap * sizeof *v);
    if (!v) return; /* not reused: its slab goes with the detector */
    charge(r, (uint64_t)(cap - k->cap) * sizeof *v);
    k->free = v;
    k->cap = cap;
  }
  k->free[k->nfree++] = h;
}

/* Same accesses (an access is its seq). */
static bool hist_eq(hist *a, hist *b) {
  if (a == b) return true;
  if (a->n != b->n) return false;
  const cold *x = cold_of(a), *y = cold_of(b);
  for (uint32_t i = a->n; i-- > 0;) /* the newest differ first */
    if (x[i].seq != y[i].seq) return false;
  return true;
}

/* Access i of h, whole. */
static entry entry_of(hist *h, uint32_t i) {
  const hot *t = &hot_of(h)[i];
  const cold *c = &cold_of(h)[i];
  return (entry){
      c->seq, c->off, c->len, c->t_ps, t->gk >> 2, t->epoch, c->line, c->op, (uint8_t)(t->gk & 3)};
}

/* Append access e to h (it has room). */
static void hist_append(hist *h, const entry *e) {
  hot_of(h)[h->n] = (hot){e->gid << 2 | e->kind, e->epoch};
  cold_of(h)[h->n] = (cold){e->seq, e->off, e->len, e->t_ps, e->line, e->op};
  h->n++;
}

/* Copy access i of h to slot j of o. */
static void hist_copy(hist *o, uint32_t j, hist *h, uint32_t i) {
  hot_of(o)[j] = hot_of(h)[i];
  cold_of(o)[j] = cold_of(h)[i];
}

/* ---- checking one access ---- */

static void hit(a2_race *r, hist *h, uint32_t i) {
  uint64_t seq = cold_of(h)[i].seq;
  if (r->nhits && r->hits[r->nhits - 1].seq == seq) return; /* met again in the next region */
  if (!grow(r, (void **)&r->hits, &r->hits_cap, r->nhits + 1, sizeof *r->hits)) return;
  r->hits[r->nhits++] = entry_of(h, i);
}

/* Check access i of h against the current one: count it when it races;
 * true when the current one supersedes it. The same answer in every region
 * that holds the access, so no access needs to remember it. */
static bool superseded(a2_race *r, hist *h, uint32_t i) {
  const entry *n = &r->cur;
  hot e = hot_of(h)[i];
  uint32_t gid = e.gk >> 2, kind = e.gk & 3;
  if (e.epoch > r->mine[gid]) { /* not ordered before n */
    if (kind != n->kind || kind == A2_RACE_WRITE) hit(r, h, i);
    return false;
  }
  if (n->kind != A2_RACE_WRITE && (n->kind != kind || (kind == A2_RACE_READ && gid != n->gid)))
    return false;
  const cold *c = &cold_of(h)[i];
  return n->off <= c->off && c->off + c->len <= n->off + n->len;
}

/* The current access's rewrite of history h: takes over the caller's
 * reference to h and returns one to the result; NULL when out of memory. */
static hist *rewrite(a2_race *r, hist *h) {
  if (h == r->memo_in) {
    h->refs--; /* the memo still holds one */
    r->memo_out->refs++;
    return r->memo_out;
  }
  if (h->refs == 1) { /* this region's alone: in place */
    uint32_t j = 0;
    for (uint32_t i = 0; i < h->n; i++)
      if (!superseded(r, h, i) && j++ != i) hist_copy(h, j - 1, h, i);
    h->n = j;
    if (j == h->cap) { /* grow with room to spare: growing costs a copy */
      hist *o = hist_new(r, j + 1 + j / 2);
      if (!o) return NULL;
      for (uint32_t i = 0; i < j; i++) hist_copy(o, i, h, i);
      o->n = j;
      o->refs = 1;
      hist_unref(r, h);
      h = o;
    }
    hist_append(h, &r->cur);
    return h;
  }
  hist *o = hist_new(r, h->n + 1);
  if (!o) return NULL;
  for (uint32_t i = 0; i < h->n; i++)
    if (!superseded(r, h, i)) hist_copy(o, o->n++, h, i);
  hist_append(o, &r->cur);
  hist_unref(r, r->memo_in);
  hist_unref(r, r->memo_out);
  r->memo_in = h; /* keeps the caller's reference */
  r->memo_out = o;
  o->refs = 2; /* the memo's and the caller's */
  return o;
}

/* Append [lo, hi) with history h (a reference the caller hands over) to the
 * page being rebuilt, merging it into an adjacent predecessor with the same
 * accesses. */
static bool out_push(a2_race *r, uint32_t *nout, uint32_t lo, uint32_t hi, hist *h) {
  if (*nout) {
    region *last = &r->out[*nout - 1];
    if (last->hi == lo && hist_eq(last->h, h)) {
      last->hi = hi;
      hist_unref(r, h);
      return true;
    }
  }
  if (!grow(r, (void **)&r->out, &r->out_cap, *nout + 1, sizeof *r->out)) return false;
  r->out[(*nout)++] = (region){lo, hi, h};
  return true;
}

/* The history of bytes never touched before: the current access alone (a
 * new reference); NULL when out of memory. */
static hist *gap(a2_race *r) {
  if (!r->gap) {
    if (!(r->gap = hist_new(r, 1))) return NULL;
    hist_append(r->gap, &r->cur);
    r->gap->refs = 1; /* the access's */
  }
  r->gap->refs++;
  return r->gap;
}

static bool push_gap(a2_race *r, uint32_t *nout, uint32_t lo, uint32_t hi) {
  hist *g = gap(r);
  return g && out_push(r, nout, lo, hi, g);
}

static region *regions_of(page *pg) {
  return pg->cap ? pg->v : pg->in;
}

/* First region of v[0..n) that ends after byte lo. */
static uint32_t first_after(const region *v, uint32_t n, uint32_t lo) {
  uint32_t a = 0, b = n;
  while (a < b) {
    uint32_t m = (a + b) / 2;
    if (v[m].hi > lo)
      b = m;
    else
      a = m + 1;
  }
  return a;
}

/* Apply the current access to bytes [lo, hi) of page pg: rebuild the regions
 * it overlaps into r->out, then put them in place of the old ones, whose
 * references they took over. Only the rebuilt regions can merge: each of
 * their histories ends with the current access, which no other region's
 * holds, so adjacent regions keep distinct histories. */
static bool page_apply(a2_race *r, page *pg, uint32_t lo, uint32_t hi) {
  region *v = regions_of(pg);
  uint32_t i = first_after(v, pg->n, lo), j = i;
  if (i < pg->n && v[i].lo == lo && v[i].hi == hi) { /* one region, exactly: the usual case */
    hist *nh = rewrite(r, v[i].h);
    if (!nh) return false;
    v[i].h = nh;
    return true;
  }
  while (j < pg->n && v[j].lo < hi) j++;
  uint32_t nout = 0, pos = lo;
  for (uint32_t m = i; m < j; m++) {
    region g = v[m];
    if (g.lo < lo) { /* the part before the access keeps its history */
      g.h->refs++;
      if (!out_push(r, &nout, g.lo, lo, g.h)) return false;
      g.lo = lo;
    }
    if (pos < g.lo && !push_gap(r, &nout, pos, g.lo)) return false;
    bool after = g.hi > hi; /* the part after the access keeps its history */
    if (after) g.h->refs++;
    uint32_t ghi = after ? hi : g.hi;
    hist *nh = rewrite(r, g.h);
    if (!nh || !out_push(r, &nout, g.lo, ghi, nh)) return false;
    if (after && !out_push(r, &nout, hi, g.hi, g.h)) return false;
    pos = ghi;
  }
  if (pos < hi && !push_gap(r, &nout, pos, hi)) return false;
  uint32_t n = pg->n - (j - i) + nout;
  if (!pg->cap && n > INLINE_REGIONS) { /* move to the heap */
    region *h = NULL;
    uint32_t cap = 0;
    if (!grow(r, (void **)&h, &cap, n, sizeof *h)) return false;
    memcpy(h, pg->in, pg->n * sizeof *h);
    pg->v = v = h;
    pg->cap = cap;
  } else if (pg->cap) {
    if (!grow(r, (void **)&pg->v, &pg->cap, n, sizeof *pg->v)) return false;
    v = pg->v;
  }
  memmove(v + i + nout, v + j, (pg->n - j) * sizeof *v);
  memcpy(v + i, r->out, nout * sizeof *v);
  pg->n = n;
  return true;
}

static block *block_of(a2_race *r, bufdir *d, uint64_t bytes, uint64_t bidx) {
  if (!d->chunk) {
    uint64_t nblocks = (bytes + BLOCK_BYTES - 1) >> BLOCK_SHIFT;
    uint32_t nchunk = (uint32_t)((nblocks + BLOCKS_PER_CHUNK - 1) / BLOCKS_PER_CHUNK);
    if (!(d->chunk = calloc(nchunk, sizeof *d->chunk))) return NULL;
    charge(r, nchunk * sizeof *d->chunk + ALLOC_OVERHEAD);
    d->nchunk = nchunk;
  }
  block **c = &d->chunk[bidx / BLOCKS_PER_CHUNK];
  if (!*c) {
    if (!(*c = calloc(BLOCKS_PER_CHUNK, sizeof **c))) return NULL;
    charge(r, BLOCKS_PER_CHUNK * sizeof **c + ALLOC_OVERHEAD);
  }
  return &(*c)[bidx % BLOCKS_PER_CHUNK];
}

static const size_t pages_bytes = PAGES_PER_BLOCK * sizeof(page);

/* Give a uniform block pages, each one region holding its history. */
static bool split_block(a2_race *r, block *b) {
  _Static_assert(sizeof(page) == 64, "a page is one cache line");
  page *p = aligned_alloc(64, pages_bytes);
  if (!p) {
    r->failed = true;
    return false;
  }
  charge(r, pages_bytes + ALLOC_OVERHEAD);
  memset(p, 0, pages_bytes);
  if (b->h) {
    for (uint32_t i = 0; i < PAGES_PER_BLOCK; i++) {
      p[i].n = 1;
      p[i].in[0] = (region){0, PAGE_BYTES, b->h};
    }
    b->h->refs += PAGES_PER_BLOCK - 1; /* the block's reference is the first page's */
    b->h = NULL;
  }
  b->pages = p;
  return true;
}

/* Make b uniform again when every page is one region with the same
 * history (after an access that covered it all). */
static void join_block(a2_race *r, block *b) {
  page *p = b->pages;
  for (uint32_t i = 0; i < PAGES_PER_BLOCK; i++)
    if (p[i].n != 1 || p[i].cap || !hist_eq(p[i].in[0].h, p[0].in[0].h)) return;
  b->h = p[0].in[0].h;
  for (uint32_t i = 1; i < PAGES_PER_BLOCK; i++) hist_unref(r, p[i].in[0].h);
  free(p);
  r->bytes -= pages_bytes + ALLOC_OVERHEAD;
  b->pages = NULL;
}

/* Apply the current access to bytes [lo, hi) of block b. */
static bool block_apply(a2_race *r, block *b, uint32_t lo, uint32_t hi) {
  bool all = lo == 0 && hi == BLOCK_BYTES;
  if (!b->pages && all) {
    b->h = b->h ? rewrite(r, b->h) : gap(r);
    return b->h != NULL;
  }
  if (!b->pages && !split_block(r, b)) return false;
  for (uint32_t p = lo >> PAGE_SHIFT; p <= (hi - 1) >> PAGE_SHIFT; p++) {
    uint32_t base = p << PAGE_SHIFT;
    uint32_t plo = lo > base ? lo - base : 0;
    uint32_t phi = hi < base + PAGE_BYTES ? hi - base : PAGE_BYTES;
    if (!page_apply(r, &b->pages[p], plo, phi)) return false;
  }
  if (all) join_block(r, b);
  return true;
}

static void note_races(a2_race *r, uint32_t owner, uint16_t buf);

/* The block of byte off of d, or NULL when not allocated (no side effects). */
static block *block_peek(const bufdir *d, uint64_t off) {
  uint64_t b = off >> BLOCK_SHIFT;
  if (!d->chunk || b / BLOCKS_PER_CHUNK >= d->nchunk) return NULL;
  block *c = d->chunk[b / BLOCKS_PER_CHUNK];
  return c ? &c[b % BLOCKS_PER_CHUNK] : NULL;
}

/* The page of byte off of d, when its block has pages. */
static page *page_peek(const bufdir *d, uint64_t off) {
  block *b = block_peek(d, off);
  return b && b->pages ? &b->pages[(off >> PAGE_SHIFT) % PAGES_PER_BLOCK] : NULL;
}

/* Fetch ahead for core gid's next accesses to d if they continue its
 * stride from its last one: the history at one stride (its page was
 * fetched one access ago), the page at two. */
static void prefetch(a2_race *r, uint32_t gid, uint32_t dir, const bufdir *d, uint64_t off) {
  stream *s = &r->streams[(size_t)gid * STREAMS + dir % STREAMS];
  if (s->dir == dir + 1 && s->off != off) {
    uint64_t next = 2 * off - s->off, after = 3 * off - 2 * s->off;
    page *pg = page_peek(d, after);
    if (pg) __builtin_prefetch(pg);
    if ((pg = page_peek(d, next)) && pg->n) {
      const region *v = pg->cap ? pg->v : pg->in;
      uint32_t i = first_after(v, pg->n, (uint32_t)(next & (PAGE_BYTES - 1)));
      if (i < pg->n) __builtin_prefetch(v[i].h);
    }
  }
  s->dir = dir + 1;
  s->off = off;
}

void a2_race_access(a2_race *r, uint32_t gid, uint32_t owner, uint16_t buf, uint64_t off,
                    uint64_t len, a2_race_kind kind, const a2_instr *in, uint64_t now_ps) {
  if (r->abandoned || r->k->bufs[buf].kind == A2_BUF_SIGNAL || len == 0) return;
  r->last_ps = now_ps;
  r->mine = r->vc + (size_t)gid * r->T;
  r->cur = (entry){++r->seq, off, len, now_ps, gid, r->mine[gid], in->line, in->op, (uint8_t)kind};
  r->nhits = 0;
  uint32_t dir = owner * r->k->nbufs + buf;
  bufdir *d = &r->dirs[dir];
  prefetch(r, gid, dir, d, off);
  uint64_t bytes = r->k->bufs[buf].bytes;
  bool ok = true;
  for (uint64_t b = off >> BLOCK_SHIFT; ok && b <= (off + len - 1) >> BLOCK_SHIFT; b++) {
    uint64_t base = b << BLOCK_SHIFT;
    uint32_t lo = off > base ? (uint32_t)(off - base) : 0;
    uint32_t hi = off + len < base + BLOCK_BYTES ? (uint32_t)(off + len - base) : BLOCK_BYTES;
    block *blk = block_of(r, d, bytes, b);
    ok = blk && block_apply(r, blk, lo, hi);
  }
  if (!ok || r->failed) {
    abandon(r); /* the state may be half updated: it is not looked at again */
    return;
  }
  note_races(r, owner, buf);
  hist_unref(r, r->memo_in);
  hist_unref(r, r->memo_out);
  hist_unref(r, r->gap);
  r->memo_in = r->memo_out = r->gap = NULL;
  check_budget(r);
}

/* ---- reports ---- */

static int by_seq(const void *a, const void *b) {
  uint64_t x = ((const entry *)a)->seq, y = ((const entry *)b)->seq;
  return x < y ? -1 : x > y;
}

/* Count the pairs (hit, current access), each earlier access once, and keep
 * the first ones for the report in the earlier accesses' dispatch order. */
static void note_races(a2_race *r, uint32_t owner, uint16_t buf) {
  if (!r->nhits) return;
  qsort(r->hits, r->nhits, sizeof *r->hits, by_seq);
  uint32_t n = 0;
  for (uint32_t i = 0; i < r->nhits; i++)
    if (!n || r->hits[n - 1].seq != r->hits[i].seq) r->hits[n++] = r->hits[i];
  r->count += n;
  for (uint32_t i = 0; i < n && r->nshown < r->show_limit; i++) {
    if (!grow(r, (void **)&r->shown, &r->shown_cap, r->nshown + 1, sizeof *r->shown)) return;
    r->shown[r->nshown++] = (race_pair){r->hits[i], r->cur, owner, buf};
  }
}

static const char *kind_word(uint8_t kind) {
  return kind == A2_RACE_ATOMIC_ADD ? "atomic" : kind == A2_RACE_WRITE ? "write" : "read";
}

static void describe(const a2_race *r, const entry *a, FILE *out) {
  fprintf(out, "    %-5s by rank %u core %u, %s %u (%s%s), dispatched at %.3f ns\n",
          kind_word(a->kind), a->gid / r->k->ncores, a->gid % r->k->ncores, a2_line_word(r->k),
          a->line, a2_op_name((a2_opcode)a->op), a->kind == A2_RACE_ATOMIC_ADD ? " atomic_add" : "",
          (double)a->t_ps / 1e3);
}

void a2_race_report(const a2_race *r, FILE *out) {
  for (uint32_t i = 0; i < r->nshown; i++) {
    const race_pair *p = &r->shown[i];
    uint64_t lo = p->a.off > p->b.off ? p->a.off : p->b.off;
    uint64_t hi =
        p->a.off + p->a.len < p->b.off + p->b.len ? p->a.off + p->a.len : p->b.off + p->b.len;
    fprintf(out, "race on %s@rank%u bytes [%llu, %llu): no notify/wait orders\n",
            r->k->bufs[p->buf].name, p->owner, (unsigned long long)lo, (unsigned long long)hi);
    describe(r, &p->a, out);
    describe(r, &p->b, out);
  }
  if (r->count > r->nshown)
    fprintf(out, "... and %llu more racing pairs\n", (unsigned long long)(r->count - r->nshown));
}

uint64_t a2_race_count(const a2_race *r) {
  return r->count;
}

bool a2_race_abandoned(const a2_race *r, uint64_t *budget, uint64_t *at_ps) {
  if (budget) *budget = r->budget;
  if (at_ps) *at_ps = r->abandoned_ps;
  return r->abandoned;
}

void a2_race_set_report_limit(a2_race *r, uint32_t pairs) {
  r->show_limit = pairs;
}

/* ---- clocks ---- */

static uint32_t *vc_of(const a2_race *r, uint32_t gid) {
  return r->vc + (size_t)gid * r->T;
}

static uint32_t *snap_get(a2_race *r) {
  if (!r->free_snaps) {
    size_t words = r->T < 2 ? 2 : r->T; /* room for the free-list link */
    if (r->nslabs == r->slab_cap) {
      uint32_t cap = r->slab_cap ? r->slab_cap * 2 : 16;
      uint32_t **v = realloc(r->slabs, cap * sizeof *v);
      if (!v) return NULL;
      charge(r, (uint64_t)(cap - r->slab_cap) * sizeof *v);
      r->slabs = v;
      r->slab_cap = cap;
    }
    uint32_t *m = malloc(SNAPS_PER_SLAB * words * sizeof *m);
    if (!m) return NULL;
    charge(r, SNAPS_PER_SLAB * words * sizeof *m + ALLOC_OVERHEAD);
    r->slabs[r->nslabs++] = m;
    for (int i = 0; i < SNAPS_PER_SLAB; i++) {
      uint32_t *snap = m + i * words;
      memcpy(snap, &r->free_snaps, sizeof r->free_snaps);
      r->free_snaps = snap;
    }
  }
  uint32_t *snap = r->free_snaps;
  memcpy(&r->free_snaps, snap, sizeof r->free_snaps);
  return snap;
}

static void snap_put(a2_race *r, uint32_t *snap) {
  memcpy(snap, &r->free_snaps, sizeof r->free_snaps);
  r->free_snaps = snap;
}

uint32_t *a2_race_notify(a2_race *r, uint32_t gid) {
  if (r->abandoned) return NULL;
  uint32_t *snap = snap_get(r);
  if (!snap) {
    abandon(r);
    return NULL;
  }
  uint32_t *mine = vc_of(r, gid);
  memcpy(snap, mine, r->T * sizeof *snap);
  mine[gid]++;
  check_budget(r);
  return snap;
}

static uint64_t cell_key(const a2_race *r, uint32_t rank, uint16_t buf, uint64_t off) {
  return (((uint64_t)rank * r->k->nbufs + buf) << 40 | (off / 4)) + 1;
}

static uint64_t hash(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  return x ^ (x >> 33);
}

static cell_slot *cell_probe(cell_slot *cells, uint64_t cap, uint64_t key) {
  uint64_t i = hash(key) & (cap - 1);
  while (cells[i].key && cells[i].key != key) i = (i + 1) & (cap - 1);
  return &cells[i];
}

/* The slot of key, inserted when missing; NULL when out of memory. */
static cell_slot *cell_insert(a2_race *r, uint64_t key) {
  if (2 * (r->ncells + 1) > r->cells_cap) { /* the table doubles */
    uint64_t cap = r->cells_cap * 2;
    cell_slot *v = calloc(cap, sizeof *v);
    if (!v) return NULL;
    for (uint64_t i = 0; i < r->cells_cap; i++)
      if (r->cells[i].key) *cell_probe(v, cap, r->cells[i].key) = r->cells[i];
    free(r->cells);
    charge(r, (cap - r->cells_cap) * sizeof *v);
    r->cells = v;
    r->cells_cap = cap;
  }
  cell_slot *c = cell_probe(r->cells, r->cells_cap, key);
  if (!c->key) {
    c->key = key;
    r->ncells++;
  }
  return c;
}

void a2_race_land(a2_race *r, uint32_t rank, uint16_t buf, uint64_t off, int set, uint32_t *snap) {
  if (r->abandoned || !snap) return;
  cell_slot *c = cell_insert(r, cell_key(r, rank, buf, off));
  if (!c) {
    abandon(r);
    return;
  }
  if (!c->vc || set) {
    if (c->vc) snap_put(r, c->vc);
    c->vc = snap;
  } else {
    for (uint32_t t = 0; t < r->T; t++)
      if (snap[t] > c->vc[t]) c->vc[t] = snap[t];
    snap_put(r, snap);
  }
  check_budget(r);
}

void a2_race_acquire(a2_race *r, uint32_t gid, uint32_t rank, uint16_t buf, uint64_t off) {
  if (r->abandoned) return;
  cell_slot *c = cell_probe(r->cells, r->cells_cap, cell_key(r, rank, buf, off));
  if (!c->key || !c->vc) return; /* never notified: nothing to inherit */
  uint32_t *mine = vc_of(r, gid), *rel = c->vc;
  for (uint32_t t = 0; t < r->T; t++)
    if (rel[t] > mine[t]) mine[t] = rel[t];
}

/* ---- life cycle ---- */

a2_race *a2_race_create(const a2_program *k, uint64_t budget_bytes) {
  a2_race *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->k = k;
  r->T = k->nranks * k->ncores;
  r->budget = budget_bytes;
  r->show_limit = DEFAULT_SHOWN;
  uint64_t cap = 1;
  for (uint32_t c = 0; c < NCLASS; c++) {
    r->caps[c] = c == NCLASS - 1 || cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
    cap = cap < 8 ? cap + 1 : cap + cap / 4;
  }
  size_t ndirs = (size_t)k->nranks * (k->nbufs ? k->nbufs : 1);
  charge(r, (uint64_t)r->T * r->T * sizeof(uint32_t) + ndirs * sizeof(bufdir) +
                (uint64_t)r->T * STREAMS * sizeof(stream));
  if (r->bytes > r->budget) { /* abandoned at once */
    abandon(r);
    return r;
  }
  r->vc = calloc((size_t)r->T * r->T, sizeof *r->vc);
  r->dirs = calloc(ndirs, sizeof *r->dirs);
  r->streams = calloc((size_t)r->T * STREAMS, sizeof *r->streams);
  r->cells_cap = 1024;
  r->cells = calloc(r->cells_cap, sizeof *r->cells);
  if (!r->vc || !r->dirs || !r->streams || !r->cells) {
    a2_race_free(r);
    return NULL;
  }
  charge(r, r->cells_cap * sizeof *r->cells);
  for (uint32_t t = 0; t < r->T; t++) r->vc[(size_t)t * r->T + t] = 1;
  return r;
}

void a2_race_free(a2_race *r) {
  if (!r) return;
  if (r->dirs)
    for (size_t i = 0; i < (size_t)r->k->nranks * (r->k->nbufs ? r->k->nbufs : 1); i++) {
      bufdir *d = &r->dirs[i];
      for (uint32_t c = 0; d->chunk && c < d->nchunk; c++) {
        block *blk = d->chunk[c];
        for (uint32_t b = 0; blk && b < BLOCKS_PER_CHUNK; b++) {
          for (uint32_t p = 0; blk[b].pages && p < PAGES_PER_BLOCK; p++)
            if (blk[b].pages[p].cap) free(blk[b].pages[p].v);
          free(blk[b].pages);
        }
        free(blk);
      }
      free(d->chunk);
    }
  for (uint32_t i = 0; i < r->nhslabs; i++) free(r->hslabs[i]); /* every history */
  for (uint32_t i = 0; i < r->nslabs; i++) free(r->slabs[i]);
  free(r->hslabs);
  for (uint32_t c = 0; c < NCLASS; c++) free(r->cls[c].free);
  free(r->slabs);
  free(r->dirs);
  free(r->streams);
  free(r->cells);
  free(r->vc);
  free(r->hits);
  free(r->out);
  free(r->shown);
  free(r);
}
