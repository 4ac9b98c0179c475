/* Stages, packets and transfers: see noc.h for the queueing equations. */
#include "noc/noc.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/huge.h"
#include "common/oom.h"
#include "common/prefetch.h"
#include "common/tq.h"
#include "kernel/kernel.h"

/* A transfer as the network keeps it: its own state, then the caller's
 * fields (x, noc.h), then the caller's context (a2_xfer_context: right
 * after x). */
typedef struct xfer_rec {
  uint32_t *path; /* stage ids: path_inline, or a heap array for a longer path */
  uint16_t nhops;
  uint16_t path_cap;   /* stage ids path has room for */
  uint8_t apply_left;  /* reservation timing: a2_xfer_finish applies the payload */
  uint64_t injected;   /* bytes already turned into packets */
  uint64_t done_bytes; /* bytes through the last hop */
  uint64_t t_done;     /* reservation timing: when the last packet leaves the path */
  uint64_t t_apply;    /* reservation timing: when the last packet starts service at apply_hop */
  uint64_t ready;      /* reservation timing: when the next packet reaches the first stage */
  uint64_t t_first;    /* reservation timing: when the first packet leaves the path (kept
                          when recycled, for a2_xfer_start_group) */
  struct xfer_rec *next_free;
  uint32_t path_inline[A2_INLINE_HOPS];
  a2_xfer x;
} xfer_rec;
_Static_assert(sizeof(xfer_rec) == offsetof(xfer_rec, x) + sizeof(a2_xfer) &&
                   sizeof(xfer_rec) % A2_XFER_CONTEXT_ALIGN == 0,
               "the caller's context follows x, aligned (a2_xfer_context)");

static inline xfer_rec *rec_of(a2_xfer *x) {
  return (xfer_rec *)(void *)((char *)x - offsetof(xfer_rec, x));
}

typedef struct a2_pkt {
  xfer_rec *x;
  uint64_t off;
  uint64_t ready_ps; /* arrival at the current stage */
  uint32_t len;
  uint16_t hop;
  struct a2_pkt *next;
} a2_pkt;

/* A reserved service interval [s, e) of a stage (reservation timing). */
typedef struct {
  uint64_t s, e;
} a2_ival;

#define INL 3           /* earlier intervals a stage holds in place (its second line) */
#define WIDE UINT32_MAX /* a 32-bit time that does not fit: the 64-bit copy holds it */

/* A stage. Its reserved future (reservation timing) is its earlier
 * intervals, iv[ihead, in) (nl of them), then its last interval [last_s,
 * last_e) (last_e 0: none at all, and then nl is 0). While nl is 0, iv,
 * ihead and in are stale: the list is reset when an interval is next pushed
 * onto it. Its fields are in lines by what a reservation touches
 * (docs/architecture.md, "Layout and prefetch rules"). */
typedef struct {
  /* line 1: all that a reservation without contention, or a prune of what
   * is all past, reads and writes */
  _Alignas(64) uint64_t last_s;
  uint64_t last_e;
  uint64_t bytes, busy_ps; /* stats (also under packet timing) */
  a2_ival *iv;             /* inl, or the heap array while they outgrow it */
  uint32_t ser32, lat32;   /* full packet's service time, latency (ps); WIDE: ser_full, lat_ps */
  uint32_t small_len;      /* the last shorter length served (a control message), 0: none */
  uint32_t small_ser;      /* its service time (ps); WIDE: recomputed */
  uint32_t packets;        /* stats: packets served, low 32 bits (packets_hi: the rest) */
  uint32_t nl;             /* earlier intervals, in iv[ihead, in) */
  /* line 2: the earlier intervals while there are at most INL */
  a2_ival inl[INL];
  uint32_t ihead, in, icap, id;
  /* the rest */
  uint64_t ser_full, lat_ps, bw;
  a2_ival *heap; /* kept for reuse after the intervals went back to inl */
  uint32_t heap_cap;
  uint32_t packets_hi;
  uint32_t runs;     /* runs of packets queued for it (a2_xfer_start_arrival) */
  a2_stage_stats st; /* filled by a2_noc_stage_stats */
  /* packet timing */
  uint64_t free_ps; /* end of current service */
  uint64_t wake_ps; /* pending wake-up, UINT64_MAX when none */
  a2_pkt *head, *tail;
  a2k_proc proc;
  a2_stage_kind kind;
  int32_t a, b;
  a2_noc *net;
} a2_stage;

_Static_assert(offsetof(a2_stage, inl) == 64 && offsetof(a2_stage, ser_full) == 128,
               "a reservation touches a stage's first line, its second under contention");

/* Count k packets served (the low word carries into packets_hi). */
static inline void count_packets(a2_stage *st, uint32_t k) {
  uint32_t lo = st->packets;
  st->packets = lo + k;
  if (st->packets < lo) st->packets_hi++;
}

static inline uint64_t st_lat(const a2_stage *st) {
  return st->lat32 != WIDE ? st->lat32 : st->lat_ps;
}

static inline uint64_t st_ser_full(const a2_stage *st) {
  return st->ser32 != WIDE ? st->ser32 : st->ser_full;
}

static inline uint32_t narrow(uint64_t t) {
  return t < WIDE ? (uint32_t)t : WIDE;
}

#define SLAB_BYTES A2_HUGE_PAGE
/* stages per allocation: a stage is found from its id by a shift, and a
 * chunk is one huge page */
#define CHUNK_BITS 13 /* 8192 stages per chunk: a power of two (a shift, not a division) */
#define CHUNK ((uint32_t)1 << CHUNK_BITS)
_Static_assert(CHUNK * sizeof(a2_stage) <= A2_HUGE_PAGE, "a chunk fits in a huge page");

struct a2_noc {
  uint32_t pkt_bytes;
  a2_stage **chunks; /* stage id i is chunks[i / CHUNK][i % CHUNK] */
  uint32_t nstages, nchunks;
  size_t xfer_bytes; /* a transfer in the pool: its xfer_rec and the caller's context */
  a2_pkt *free_pkts;
  xfer_rec *free_xfers;
  void **slabs;
  uint32_t nslabs, slab_cap;
  a2_noc_observer observer;
  void *observer_ctx;
  a2_noc_defer_fn defer; /* non-NULL: reservation timing */
  void *defer_ctx;
  /* reservation timing with an observer: packet services are reserved out
   * of time order, so they are held here (A2_TQ_SERVICE) and shown in
   * order of start */
  a2_tq held;
  /* runs of packets bound for a stage, by arrival (A2_TQ_RUN): transfers
   * started with a2_xfer_start_arrival */
  a2_tq arrivals;
};

static inline a2_stage *stage_at(const a2_noc *n, uint32_t id) {
  return &n->chunks[id >> CHUNK_BITS][id & (CHUNK - 1)];
}

/* Service time of a len-byte packet at st: a full one's, the last shorter
 * length's (control messages: one size), or computed (and remembered). */
static inline uint64_t st_ser(const a2_noc *n, a2_stage *st, uint32_t len) {
  if (len == n->pkt_bytes) return st_ser_full(st);
  if (len == st->small_len && st->small_ser != WIDE) return st->small_ser;
  uint64_t t = a2_ser_ps(len, st->bw);
  st->small_len = len;
  st->small_ser = narrow(t);
  return t;
}

/* ---- prefetch hints (noc.h) ---- */

/* The hint for stage st: level 0 its first line, all that a reservation
 * without contention reads; level 1 its earlier intervals, where a
 * reservation may push onto them (a short list is at its start). */
static inline void stage_prefetch(const a2_stage *st, int level) {
  if (level == 0) {
    a2_prefetch_w(st);
  } else if (st->nl) {
    a2_prefetch_w(&st->inl);
    if (st->iv != st->inl) a2_prefetch_w(st->iv);
  }
}

void a2_noc_prefetch_stages(const a2_noc *n, const uint32_t *ids, unsigned count, int level) {
  for (unsigned i = 0; i < count; i++)
    if (ids[i] != A2_NO_STAGE) stage_prefetch(stage_at(n, ids[i]), level);
}

void a2_noc_prefetch_xfer(const a2_noc *n, const a2_xfer *x) {
  a2_prefetch_lines_w((const char *)x - offsetof(xfer_rec, x), n->xfer_bytes);
}

/* Hold a service of stage st from s to e for the observer. */
static void held_push(a2_noc *n, const a2_stage *st, uint64_t s, uint64_t e, uint64_t len) {
  a2_tq_push(&n->held, s,
             &(a2_tq_item){.kind = A2_TQ_SERVICE, .u.service = {e, st->id, (uint32_t)len}});
}

/* Show every held service that starts by `upto`: nothing reserved from now
 * on can start earlier than now. */
static void held_flush(a2_noc *n, uint64_t upto) {
  a2_tq_item it;
  while (a2_tq_pop_due(&n->held, upto, &it))
    if (n->observer)
      n->observer(n->observer_ctx, it.u.service.stage, it.t_ps, it.u.service.end_ps,
                  it.u.service.bytes);
}

void a2_noc_flush_observer(a2_noc *n) {
  held_flush(n, UINT64_MAX);
}

void a2_noc_set_observer(a2_noc *n, a2_noc_observer fn, void *ctx) {
  n->observer = fn;
  n->observer_ctx = ctx;
}

uint64_t a2_ser_ps(uint64_t len, uint64_t bw) {
  /* S(len) = ceil(len * 1e12 / bw), as (len * 1e12 + bw - 1) / bw. A
   * packet's len * 1e12 fits in 64 bits: one division instruction instead of
   * a 128-bit division call (same result). */
  if (len <= 18000000 && bw <= 100000000000000ull) return (len * 1000000000000ull + bw - 1) / bw;
  unsigned __int128 t = (unsigned __int128)len * 1000000000000ull + bw - 1;
  return (uint64_t)(t / bw);
}

uint64_t a2_noc_msg_ps(const a2_noc *n, const uint32_t *ids, unsigned count, uint32_t len) {
  uint64_t t = 0;
  for (unsigned i = 0; i < count; i++) {
    const a2_stage *st = stage_at(n, ids[i]);
    t += a2_ser_ps(len, st->bw) + st->lat_ps;
  }
  return t;
}

/* A slab of SLAB_BYTES / each objects (one huge page: transfers pending
 * at scale, one per rank and more, are touched in no particular order). */
static void *slab_alloc(a2_noc *n) {
  if (n->nslabs == n->slab_cap) {
    uint32_t cap = n->slab_cap ? n->slab_cap * 2 : 16;
    void **s = realloc(n->slabs, cap * sizeof *s);
    if (!s) return NULL;
    n->slabs = s;
    n->slab_cap = cap;
  }
  void *m = a2_huge_alloc(SLAB_BYTES);
  if (m) n->slabs[n->nslabs++] = m;
  return m;
}

static a2_pkt *pkt_get(a2_noc *n) {
  if (!n->free_pkts) {
    a2_pkt *m = slab_alloc(n);
    if (!m) a2_out_of_memory("packets in flight"); /* grows only with them: docs/architecture.md */
    for (size_t i = 0; i < SLAB_BYTES / sizeof *m; i++) {
      m[i].next = n->free_pkts;
      n->free_pkts = &m[i];
    }
  }
  a2_pkt *p = n->free_pkts;
  n->free_pkts = p->next;
  return p;
}

static void pkt_put(a2_noc *n, a2_pkt *p) {
  p->next = n->free_pkts;
  n->free_pkts = p;
}

a2_xfer *a2_xfer_alloc(a2_noc *n) {
  if (!n->free_xfers) {
    char *m = slab_alloc(n);
    if (!m) return NULL;
    for (size_t i = 0; i < SLAB_BYTES / n->xfer_bytes; i++) {
      xfer_rec *r = (xfer_rec *)(void *)(m + i * n->xfer_bytes);
      r->path = r->path_inline;
      r->path_cap = A2_INLINE_HOPS;
      r->next_free = n->free_xfers;
      n->free_xfers = r;
    }
  }
  xfer_rec *r = n->free_xfers;
  n->free_xfers = r->next_free;
  r->nhops = 0;
  r->injected = r->done_bytes = 0;
  r->x = (a2_xfer){.apply_hop = A2_NO_HOP};
  return &r->x;
}

uint32_t *a2_xfer_path(a2_xfer *x, uint16_t nhops) {
  xfer_rec *r = rec_of(x);
  if (nhops > r->path_cap) {
    uint32_t *p = malloc(nhops * sizeof *p);
    if (!p) return NULL;
    if (r->path != r->path_inline) free(r->path);
    r->path = p;
    r->path_cap = nhops;
  }
  r->nhops = nhops;
  return r->path;
}

uint32_t a2_xfer_hop(a2_xfer *x, uint16_t h) {
  return rec_of(x)->path[h];
}

uint16_t a2_xfer_hops(a2_xfer *x) {
  return rec_of(x)->nhops;
}

static void xfer_put(a2_noc *n, xfer_rec *r) {
  if (r->path != r->path_inline) free(r->path);
  r->path = r->path_inline;
  r->path_cap = A2_INLINE_HOPS;
  r->next_free = n->free_xfers;
  n->free_xfers = r;
}

static void stage_wake(a2_stage *s, uint64_t t) {
  if (t < s->wake_ps) {
    s->wake_ps = t;
    a2k_wake_at(s->proc, t);
  }
}

/* Insert keeping arrival order; equal arrivals stay FIFO. Packets almost
 * always arrive in order, so the scan from the tail is short. */
static void stage_enqueue(a2_stage *s, a2_pkt *p) {
  p->next = NULL;
  if (!s->tail) {
    s->head = s->tail = p;
  } else if (s->tail->ready_ps <= p->ready_ps) {
    s->tail->next = p;
    s->tail = p;
  } else if (p->ready_ps < s->head->ready_ps) {
    p->next = s->head;
    s->head = p;
  } else {
    a2_pkt *q = s->head;
    while (q->next && q->next->ready_ps <= p->ready_ps) q = q->next;
    p->next = q->next;
    q->next = p;
  }
  stage_wake(s, p->ready_ps > s->free_ps ? p->ready_ps : s->free_ps);
}

/* Turn the next piece of x into a packet ready at the first stage at t. */
static void inject(a2_noc *n, xfer_rec *r, uint64_t t) {
  a2_pkt *p = pkt_get(n);
  uint64_t left = r->x.bytes - r->injected;
  p->x = r;
  p->off = r->injected;
  p->len = (uint32_t)(left < n->pkt_bytes ? left : n->pkt_bytes);
  p->hop = 0;
  p->ready_ps = t;
  r->injected += p->len;
  stage_enqueue(stage_at(n, r->path[0]), p);
}

/* ---- reservation timing ---- */

#define BLOCK 64 /* packets reserved hop by hop together */
#define STEP 16  /* packets of a stepped transfer reserved at a time (a2_noc_whole_at_start) */

void a2_noc_set_reservation(a2_noc *n, a2_noc_defer_fn defer, void *ctx) {
  n->defer = defer;
  n->defer_ctx = ctx;
}

int a2_noc_reservation(const a2_noc *n) {
  return n->defer != NULL;
}

/* Drop intervals that ended by `now`: nothing can be reserved before now
 * (past intervals left in the list are harmless: searches skip them, and a
 * reservation after everything never reads them). Here only when all are
 * past, on the first line; earlier intervals are pruned by list_prune when
 * the list is next used. */
static inline void ival_prune(a2_stage *st, uint64_t now) {
  if (st->last_e <= now) { /* all past: the usual case */
    st->last_e = 0;
    st->nl = 0;
  }
}

/* Drop the earlier intervals that ended by `now` (nl > 0). */
static void list_prune(a2_stage *st, uint64_t now) {
  uint32_t h = st->ihead;
  while (h < st->in && st->iv[h].e <= now) h++;
  uint32_t live = st->in - h;
  if (st->iv == st->inl) { /* in place: drop the past ones, the line is at hand */
    if (h) {
      memmove(st->iv, st->iv + h, live * sizeof *st->iv);
      st->in = live;
      st->ihead = 0;
    }
  } else if (live <= 1) {
    /* In the heap array: a list of one goes back in place (room for two
     * more there), one of up to 16 moves to the array's start, so that the
     * stage keeps using the same few lines (docs/architecture.md, "Layout
     * and prefetch rules"); a longer one slides until half of the array is
     * past. */
    memcpy(st->inl, st->iv + h, live * sizeof *st->iv);
    st->iv = st->inl;
    st->icap = INL;
    st->ihead = 0;
    st->in = live;
  } else if (h > st->ihead && (live <= 16 || (h >= 64 && h * 2 >= st->in))) {
    memmove(st->iv, st->iv + h, live * sizeof *st->iv);
    st->ihead = 0;
    st->in = live;
  } else {
    st->ihead = h;
  }
  st->nl = live;
}

static void ival_grow(a2_stage *st) {
  if (st->iv == st->inl) { /* out of place: into the kept heap array, or a new one */
    if (!st->heap) {
      st->heap_cap = 4 * INL;
      st->heap = malloc(st->heap_cap * sizeof *st->heap);
      if (!st->heap) a2_out_of_memory("a stage's reservations"); /* grow with those in flight */
    }
    memcpy(st->heap, st->inl, st->in * sizeof *st->heap);
    st->iv = st->heap;
    st->icap = st->heap_cap;
    if (st->in < st->icap) return;
  }
  uint32_t cap = st->icap * 2;
  a2_ival *v = realloc(st->iv, cap * sizeof *v);
  if (!v) a2_out_of_memory("a stage's reservations");
  st->iv = st->heap = v;
  st->icap = st->heap_cap = cap;
}

/* An empty list (nl 0) starts over in place: iv, ihead and in were stale. */
static inline void list_reset(a2_stage *st) {
  st->iv = st->inl;
  st->icap = INL;
  st->ihead = st->in = 0;
}

/* Append the last interval to the earlier ones (it is followed by a new
 * one), dropping those that ended by now. */
static inline void push_last(a2_stage *st, uint64_t now) {
  if (st->nl && st->iv[st->ihead].e <= now) list_prune(st, now); /* some are past */
  if (!st->nl) list_reset(st);
  if (st->in == st->icap) ival_grow(st);
  st->iv[st->in++] = (a2_ival){st->last_s, st->last_e};
  st->nl++;
}

/* Every interval in iv[ihead, in), the last one included: the form the
 * earliest-fit search works on (contention only). */
static void ival_spill(a2_stage *st, uint64_t now) {
  if (st->last_e) {
    push_last(st, now);
    st->last_e = 0;
  } else if (!st->nl) {
    list_reset(st);
  }
}

/* Back from ival_spill's form: the last interval to last_s/last_e. */
static void ival_unspill(a2_stage *st) {
  if (st->in > st->ihead) {
    a2_ival l = st->iv[--st->in];
    st->last_s = l.s;
    st->last_e = l.e;
  }
  st->nl = st->in - st->ihead;
}

/* The first of the intervals iv[lo, hi) that ends after a (hi: none). Their
 * ends rise, so it is unique; the search gallops back from the last one,
 * since a reservation that contends usually lands among the latest few
 * (the lines at hand), then halves the range found. */
static inline uint32_t ival_first_after(const a2_ival *iv, uint32_t lo, uint32_t hi, uint64_t a) {
  if (hi == lo || iv[hi - 1].e <= a) return hi; /* after everything reserved */
  uint32_t r = hi - 1, k = 1;                   /* iv[r] ends after a */
  while (r - lo >= k && iv[r - k].e > a) {
    r -= k;
    k *= 2;
  }
  if (r - lo >= k) lo = r - k + 1; /* iv[r - k] ends by a */
  while (lo < r) {
    uint32_t mid = lo + (r - lo) / 2;
    if (iv[mid].e <= a)
      lo = mid + 1;
    else
      r = mid;
  }
  return lo;
}

/* Reserve d ps at the earliest start >= a that overlaps no reserved
 * interval of iv[ihead, in) (ival_spill's form); returns the start.
 * Intervals that touch are merged, so a stream at the stage's own rate
 * stays one interval. *hint: where the previous packet of the block went
 * (0: none); the search starts there when every interval before it ends by
 * a (packets arrive in order), and *hint is left where this one went. */
static uint64_t ival_reserve(a2_stage *st, uint64_t a, uint64_t d, uint32_t *hint) {
  uint32_t lo = st->ihead, hi = st->in;
  if (*hint > lo && *hint <= hi && st->iv[*hint - 1].e <= a) {
    lo = *hint; /* the answer is usually at or just after it */
    for (int g = 0; g < 4 && lo < hi && st->iv[lo].e <= a; g++) lo++;
  }
  lo = ival_first_after(st->iv, lo, hi, a);
  uint64_t s = a;
  uint32_t i = lo;
  while (i < st->in && st->iv[i].s < s + d) {
    if (st->iv[i].e > s) s = st->iv[i].e;
    i++;
  }
  /* [s, s+d) goes between iv[i-1] (ends <= s) and iv[i] (starts >= s+d) */
  bool join_prev = i > st->ihead && st->iv[i - 1].e == s;
  bool join_next = i < st->in && st->iv[i].s == s + d;
  *hint = join_prev ? i - 1 : i; /* the interval that now holds [s, s+d) */
  if (join_prev && join_next) {
    st->iv[i - 1].e = st->iv[i].e;
    memmove(st->iv + i, st->iv + i + 1, (st->in - i - 1) * sizeof *st->iv);
    st->in--;
  } else if (join_prev) {
    st->iv[i - 1].e = s + d;
  } else if (join_next) {
    st->iv[i].s = s;
  } else {
    if (st->in == st->icap) ival_grow(st);
    memmove(st->iv + i + 1, st->iv + i, (st->in - i) * sizeof *st->iv);
    st->iv[i] = (a2_ival){s, s + d};
    st->in++;
  }
  return s;
}

/* ival_reserve for one packet, from and back to the usual form. */
static uint64_t ival_reserve_one(a2_stage *st, uint64_t now, uint64_t a, uint64_t d) {
  uint32_t hint = 0;
  ival_spill(st, now);
  uint64_t s = ival_reserve(st, a, d, &hint);
  ival_unspill(st);
  return s;
}

/* Reserve d ps at st for work that arrives at or after the start of its
 * last interval: at that interval's end (joining it), or at the arrival
 * after it. Returns the start. */
static inline uint64_t ival_append(a2_stage *st, uint64_t now, uint64_t arr, uint64_t d) {
  if (st->last_e && arr <= st->last_e) { /* joins the last interval */
    uint64_t s = st->last_e;
    st->last_e = s + d;
    return s;
  }
  if (st->last_e) push_last(st, now); /* a gap after it */
  st->last_s = arr;
  st->last_e = arr + d;
  return arr;
}

/* One hop of a block of k packets: arrivals a[] (hop 0: packet j+1 is
 * injected when packet j starts service, the first at `ready`), service
 * ser_full each except a short last packet (ser_last). Appends after
 * everything reserved at st: coalesces touching services into one interval
 * in registers. Requires rising arrivals, the first at or after the end of
 * the last interval, or at least after its start (then no gap before the
 * stage's last end can take it, nor a later arrival). Leaves in a[] the
 * arrivals at the next hop; returns the last start. */
static uint64_t hop_append(a2_stage *st, uint64_t now, uint64_t *a, uint32_t k, bool hop0,
                           uint64_t ready, uint64_t ser_last) {
  uint64_t ser = st_ser_full(st), lat = st_lat(st), s = 0, busy = 0;
  if (hop0) { /* each packet is ready when the one before starts: back to back, one interval */
    /* from the first's start s: D(0, j) = s + (j + 1) * S_0(p), the last s + busy */
    busy = (uint64_t)(k - 1) * ser + ser_last;
    s = ival_append(st, now, ready, busy);
    for (uint32_t j = 0; j + 1 < k; j++) a[j] = s + (j + 1) * ser + lat;
    a[k - 1] = s + busy + lat;
    st->busy_ps += busy;
    return s + (uint64_t)(k - 1) * ser;
  }
  uint64_t free_ps = st->last_e;
  bool open = free_ps != 0;          /* [last_s, free_ps) is the last interval */
  for (uint32_t j = 0; j < k; j++) { /* later hops: each packet as it arrives */
    uint64_t arr = a[j], d = j + 1 == k ? ser_last : ser; /* arrival, S_x(size_j) */
    /* the start: max(D(x-1, j) + lat(x-1), D(x, j-1)) */
    s = arr > free_ps ? arr : free_ps;
    if (!open || s != free_ps) { /* a gap: close the open interval, open one at s */
      if (open) {
        st->last_e = free_ps;
        push_last(st, now);
      }
      st->last_s = s;
      open = true;
    }
    free_ps = s + d; /* D(x, j) */
    busy += d;
    a[j] = free_ps + lat; /* D(x, j) + lat(x): the arrival at the next stage */
  }
  st->last_e = free_ps;
  st->busy_ps += busy;
  return s;
}

/* on_apply over the whole payload, in pieces that fit its uint32 length. */
static void apply_all(a2_xfer *x) {
  for (uint64_t off = 0; off < x->bytes; off += 1u << 30) {
    uint64_t left = x->bytes - off;
    x->on_apply(x, off, (uint32_t)(left < (1u << 30) ? left : (1u << 30)));
  }
}

/* One packet of len bytes (service ser) arriving at st at arr: the earliest
 * free slot there at or after the arrival (without contention max(arrival,
 * stage free), as in D(x, j)), counted in the stage's stats. Returns its
 * start. */
static uint64_t reserve_packet(a2_noc *n, a2_stage *st, uint64_t now, uint64_t arr, uint32_t len,
                               uint64_t ser) {
  uint64_t s;
  if (!n->observer && (st->last_e <= arr || st->last_s <= arr)) {
    s = ival_append(st, now, arr, ser);
  } else {
    s = ival_reserve_one(st, now, arr, ser);
    if (n->observer) held_push(n, st, s, s + ser, len);
  }
  st->bytes += len;
  count_packets(st, 1);
  st->busy_ps += ser;
  return s;
}

/* Reservation of a one-packet transfer (control messages, chunks up to a
 * packet: at thousands of ranks, every transfer of the ring) along stages
 * sp[0..nhops): the general loop of reserve_all for a block of one,
 * without the block arithmetic. Returns when the packet leaves the last stage; *applied
 * is when it started service at the apply hop. */
static uint64_t reserve_one(a2_noc *n, const xfer_rec *r, a2_stage *const *sp, uint64_t now,
                            uint64_t t0, uint64_t *applied) {
  uint32_t len = (uint32_t)r->x.bytes;
  uint64_t arr = t0;
  for (uint16_t h = 0; h < r->nhops; h++) {
    a2_stage *st = sp[h];
    uint64_t ser = st_ser(n, st, len); /* S_x(len) */
    uint64_t s = reserve_packet(n, st, now, arr, len, ser);
    if (h == r->x.apply_hop) *applied = s;
    arr = s + ser + st_lat(st); /* D(x, 0) + lat(x): the arrival at the next stage */
  }
  return arr;
}

bool a2_noc_whole_at_start(const a2_noc *n, uint64_t bytes) {
  return bytes <= (uint64_t)STEP * n->pkt_bytes;
}

/* Whether x is reserved in steps (noc.h, "Steps"). */
static inline bool stepped(const a2_noc *n, const a2_xfer *x) {
  return !x->known && !x->lands && !a2_noc_whole_at_start(n, x->bytes);
}

/* Reservation timing: the packets of r through every hop, now, from
 * r->injected on; all that are left, or for a stepped transfer the next
 * STEP. Packets go in blocks, hop by hop: a block's arrivals at a stage are
 * known once the previous hop is done, and a block arriving after
 * everything reserved at a stage (the uncontended case) is appended without
 * searching. r->ready is when the next packet reaches the first stage;
 * r->t_done and r->t_apply gather the last departure and the last start at
 * the apply hop over the steps. Returns whether r was handed to the defer
 * hook (else the caller recycles it). */
static bool reserve_all(a2_noc *n, xfer_rec *r, uint64_t now) {
  a2_xfer *x = &r->x;
  uint64_t ready = r->ready, done = r->t_done, applied = r->t_apply;
  uint64_t a[BLOCK];
  uint32_t pkt = n->pkt_bytes;
  bool obs = n->observer != NULL, first = r->injected == 0;
  uint64_t step_end = r->injected + (uint64_t)STEP * pkt; /* a stepped transfer's next step */
  uint64_t upto = stepped(n, x) && step_end < x->bytes ? step_end : x->bytes;
  /* the path's stages, found once (the first MAXP; a longer path looks the
   * rest up per block) */
  enum { MAXP = 16 };
  a2_stage *sp[MAXP];
  uint16_t np = r->nhops < MAXP ? r->nhops : MAXP;
  /* they are cold at scale: ask for all of them at once, so that their
   * cache misses overlap instead of following one another */
  for (uint16_t h = 0; h < np; h++) {
    sp[h] = stage_at(n, r->path[h]);
    stage_prefetch(sp[h], 0);
  }
  for (uint16_t h = 0; h < r->nhops; h++) ival_prune(h < np ? sp[h] : stage_at(n, r->path[h]), now);
  if (n->held.n && now) held_flush(n, now - 1);
  if (x->bytes && x->bytes <= pkt && r->nhops == np) { /* one packet: the loop below, k = 1 */
    done = reserve_one(n, r, sp, now, ready, &applied);
    r->injected = x->bytes;
    r->t_first = done;
  }
  while (r->injected < upto) {
    /* k packets, all full but perhaps the last (the transfer's tail) */
    uint64_t left = upto - r->injected;
    uint64_t kk = (left + pkt - 1) / pkt;
    uint32_t k = kk < BLOCK ? (uint32_t)kk : BLOCK;
    uint64_t blk = kk <= BLOCK ? left : (uint64_t)k * pkt;
    uint32_t last_len = (uint32_t)(blk - (uint64_t)(k - 1) * pkt);
    r->injected += blk;
    /* a[] rises: the previous hop took the block in order, by hop_append (a
     * stage's earliest-fit search may put a short last packet into an
     * earlier gap) */
    bool sorted = true;
    for (uint16_t h = 0; h < r->nhops; h++) {
      a2_stage *st = h < np ? sp[h] : stage_at(n, r->path[h]);
      uint64_t ser_last = st_ser(n, st, last_len);
      st->bytes += blk;
      count_packets(st, k);
      /* hop 0: packet j+1 is injected when packet j starts service. The
       * first arrival is after everything reserved, or queues behind the
       * last interval (a FIFO backlog: the usual case of a busy stage). */
      uint64_t a0 = h == 0 ? ready : a[0];
      if (!obs && (st->last_e <= a0 || (sorted && st->last_s <= a0))) {
        uint64_t last = hop_append(st, now, a, k, h == 0, ready, ser_last);
        if (h == 0) ready = last;
        if (h == x->apply_hop && last > applied) applied = last; /* starts rise */
        sorted = true;
        continue;
      }
      sorted = false;
      uint32_t hint = 0;
      uint64_t busy = 0, lat = st_lat(st), ser_full = st_ser_full(st);
      ival_spill(st, now);
      for (uint32_t j = 0; j < k; j++) {
        uint64_t arr = h == 0 ? ready : a[j];
        uint64_t ser = j + 1 == k ? ser_last : ser_full;
        uint64_t s = ival_reserve(st, arr, ser, &hint);
        if (h == 0) ready = s;
        busy += ser;
        if (obs) held_push(n, st, s, s + ser, j + 1 == k ? last_len : pkt);
        if (h == x->apply_hop && s > applied) applied = s;
        a[j] = s + ser + lat;
      }
      ival_unspill(st);
      st->busy_ps += busy;
    }
    if (first && r->injected == blk) r->t_first = a[0]; /* the first block */
    if (sorted) { /* the last hop took it in order: its last packet leaves last */
      if (a[k - 1] > done) done = a[k - 1];
    } else {
      for (uint32_t j = 0; j < k; j++)
        if (a[j] > done) done = a[j];
    }
  }
  r->ready = ready;
  r->t_done = done;
  r->t_apply = applied;
  if (first) {
    /* Bytes move now when the caller has taken the completion time
     * (x->known), or when x reads at its first stage (a load's source), as
     * packet timing reads when that stage serves them: a later write to the
     * source, which program order puts after it, must not be seen. */
    bool applies = x->on_apply && x->apply_hop != A2_NO_HOP;
    if (applies && (x->known || (x->apply_hop == 0 && !x->writes))) {
      apply_all(x);
      applies = false;
    }
    r->apply_left = applies;
  }
  if (r->injected < x->bytes) { /* the next step, when its first packet reaches the first stage */
    n->defer(n->defer_ctx, x, ready);
    return true;
  }
  r->done_bytes = x->bytes;
  if (!x->on_done && !r->apply_left) return false; /* nothing happens later */
  /* A transfer that only applies (a notify) acts when its last packet is
   * served at the apply hop, as with packet timing; one with a completion
   * applies its payload then. */
  n->defer(n->defer_ctx, x, x->on_done ? done : applied);
  return true;
}

/* noc.h: transfers reserved together, one packet at a time, the next the
 * one that arrives first at its first stage (a linear scan: a group is a
 * few transfers), through every hop of its path. A group of one is
 * a2_xfer_start's blocks, which give the same times. */
void a2_xfer_start_group(a2_noc *n, a2_xfer *const *xs, const uint64_t *t_ps, uint64_t *done_ps,
                         uint64_t *first_ps, unsigned count) {
  if (count == 1) {
    done_ps[0] = a2_xfer_start(n, xs[0], t_ps[0]);
    if (first_ps) first_ps[0] = rec_of(xs[0])->t_first;
    return;
  }
  uint64_t now = a2k_now_ps();
  for (unsigned i = 0; i < count; i++) {
    xfer_rec *r = rec_of(xs[i]);
    r->ready = t_ps[i] > now ? t_ps[i] : now;
    r->t_done = 0;
    r->injected = 0;
    if (first_ps) first_ps[i] = 0;
    for (uint16_t h = 0; h < r->nhops; h++) ival_prune(stage_at(n, r->path[h]), now);
  }
  if (n->held.n && now) held_flush(n, now - 1);
  for (;;) {
    xfer_rec *r = NULL;
    unsigned ri = 0;
    for (unsigned i = 0; i < count; i++) {
      xfer_rec *q = rec_of(xs[i]);
      if (q->injected >= q->x.bytes) continue;
      /* equal arrivals: a transfer's first packet, queued when it was
       * started, goes before a later packet, queued when the one before it
       * started service (as packet timing queues them) */
      if (!r || q->ready < r->ready || (q->ready == r->ready && !q->injected && r->injected)) {
        r = q;
        ri = i;
      }
    }
    if (!r) break;
    bool first = r->injected == 0;
    uint64_t left = r->x.bytes - r->injected;
    uint32_t len = (uint32_t)(left < n->pkt_bytes ? left : n->pkt_bytes);
    r->injected += len;
    uint64_t arr = r->ready;
    for (uint16_t h = 0; h < r->nhops; h++) {
      a2_stage *st = stage_at(n, r->path[h]);
      uint64_t ser = st_ser(n, st, len), s = reserve_packet(n, st, now, arr, len, ser);
      if (h == 0) r->ready = s;
      arr = s + ser + st_lat(st);
    }
    if (arr > r->t_done) r->t_done = arr;
    if (first && first_ps) first_ps[ri] = arr;
  }
  for (unsigned i = 0; i < count; i++) {
    xfer_rec *r = rec_of(xs[i]);
    a2_xfer *x = &r->x;
    if (x->on_apply && x->apply_hop != A2_NO_HOP) apply_all(x);
    done_ps[i] = r->t_done;
    xfer_put(n, r);
  }
}

void a2_xfer_finish(a2_noc *n, a2_xfer *x) {
  xfer_rec *r = rec_of(x);
  if (r->injected < x->bytes) { /* a stepped transfer's next step */
    if (!reserve_all(n, r, a2k_now_ps())) xfer_put(n, r);
    return;
  }
  if (r->apply_left) apply_all(x);
  if (x->on_done) x->on_done(x, r->t_done);
  xfer_put(n, r);
}

uint64_t a2_xfer_start(a2_noc *n, a2_xfer *x, uint64_t t_ps) {
  xfer_rec *r = rec_of(x);
  uint64_t now = a2k_now_ps(), t0 = t_ps > now ? t_ps : now;
  if (!n->defer) {
    inject(n, r, t0);
    return UINT64_MAX;
  }
  r->ready = t0;
  r->t_done = r->t_apply = 0;
  bool deferred = reserve_all(n, r, now);
  uint64_t t = r->injected < x->bytes ? UINT64_MAX : x->lands ? r->t_apply : r->t_done;
  if (!deferred) xfer_put(n, r); /* nothing left to do */
  return t;
}

/* ---- arrivals (noc.h, a2_xfer_start_arrival) ----
 * A transfer's packets as runs: each run is the packets bound for one hop,
 * queued in n->arrivals at the first one's arrival there. A run is
 * reserved packet by packet (earliest fit) until its next packet would
 * arrive after the window, or, while another run is queued for the same
 * stage, after the first run queued anywhere; the rest is queued again,
 * and the packets reserved go on as one run for the next hop. */
typedef struct {
  xfer_rec *r;
  uint32_t npk, left; /* packets; those not yet through the last hop */
  uint32_t runs;      /* its runs queued */
  uint64_t t_done;    /* the latest departure from the last hop so far */
  uint64_t *arr;      /* per packet: its arrival at its next hop */
  uint16_t *hop;      /* per packet: that hop */
} arrival_xfer;

static void run_push(a2_noc *n, arrival_xfer *a, uint32_t j0, uint32_t j) {
  a->runs++;
  stage_at(n, a->r->path[a->hop[j0]])->runs++;
  a2_tq_push(&n->arrivals, a->arr[j0], &(a2_tq_item){.kind = A2_TQ_RUN, .u.run = {a, j0, j}});
}

void a2_xfer_start_arrival(a2_noc *n, a2_xfer *x, uint64_t t_ps) {
  xfer_rec *r = rec_of(x);
  uint64_t now = a2k_now_ps(), t0 = t_ps > now ? t_ps : now;
  if (!r->nhops) { /* no stage to cross: it has arrived */
    if (x->on_apply && x->apply_hop != A2_NO_HOP) apply_all(x);
    if (x->on_done) x->on_done(x, t0);
    xfer_put(n, r);
    return;
  }
  uint32_t npk = (uint32_t)((x->bytes + n->pkt_bytes - 1) / n->pkt_bytes);
  arrival_xfer *a = malloc(sizeof *a + npk * (sizeof *a->arr + sizeof *a->hop));
  if (!a) a2_out_of_memory("transfers in flight");
  *a = (arrival_xfer){r, npk, npk, 0, 0, (uint64_t *)(void *)(a + 1), NULL};
  a->hop = (uint16_t *)(void *)(a->arr + npk);
  memset(a->hop, 0, npk * sizeof *a->hop);
  a->arr[0] = t0; /* packet j+1's, when packet j starts service there (a2_noc_arrivals_run) */
  if (x->on_apply && x->apply_hop != A2_NO_HOP) apply_all(x);
  run_push(n, a, 0, npk);
}

uint64_t a2_noc_arrivals_next(const a2_noc *n) {
  return a2_tq_next(&n->arrivals);
}

void a2_noc_arrivals_run(a2_noc *n, uint64_t upto) {
  uint64_t now = a2k_now_ps();
  if (n->held.n && now) held_flush(n, now - 1);
  a2_tq_item it;
  while (a2_tq_pop_due(&n->arrivals, upto, &it)) {
    arrival_xfer *a = it.u.run.a;
    xfer_rec *r = a->r;
    a->runs--;
    uint32_t j0 = it.u.run.j0, end = it.u.run.j, j = j0;
    uint16_t h = a->hop[j0];
    a2_stage *st = stage_at(n, r->path[h]);
    st->runs--;
    ival_prune(st, now);
    /* another run queued for this stage may arrive first: then no later
     * than the first queued anywhere */
    uint64_t lat = st_lat(st), cut = st->runs ? a2_tq_next(&n->arrivals) : UINT64_MAX;
    for (; j < end; j++) {
      if (j > j0 && (a->arr[j] > cut || a->arr[j] > upto)) break;
      uint64_t off = (uint64_t)j * n->pkt_bytes, left = r->x.bytes - off;
      uint32_t len = (uint32_t)(left < n->pkt_bytes ? left : n->pkt_bytes);
      uint64_t ser = st_ser(n, st, len), s = reserve_packet(n, st, now, a->arr[j], len, ser);
      if (h == 0 && j + 1 < a->npk) a->arr[j + 1] = s; /* queued when j starts service */
      a->arr[j] = s + ser + lat;
      a->hop[j] = (uint16_t)(h + 1);
      if (h + 1 == r->nhops) {
        a->left--;
        if (a->arr[j] > a->t_done) a->t_done = a->arr[j];
      }
    }
    if (j < end) run_push(n, a, j, end);
    if (h + 1 < r->nhops) {
      run_push(n, a, j0, j);
    } else if (!a->left) { /* its last packet has left its path */
      uint64_t t = a->t_done;
      free(a);
      if (r->x.on_done) r->x.on_done(&r->x, t);
      xfer_put(n, r);
    }
  }
}

static void stage_run(void *ctx) {
  a2_stage *s = ctx;
  a2_noc *n = s->net;
  uint64_t now = a2k_now_ps();
  s->wake_ps = UINT64_MAX;
  while (s->head) {
    a2_pkt *p = s->head;
    /* its start: max(arrival, stage free), i.e. max(D(x-1, j) + lat(x-1), D(x, j-1)) */
    uint64_t t = p->ready_ps > s->free_ps ? p->ready_ps : s->free_ps;
    if (t > now) {
      stage_wake(s, t);
      return;
    }
    s->head = p->next;
    if (!s->head) s->tail = NULL;
    uint64_t ser = a2_ser_ps(p->len, s->bw); /* S_x(len) */
    s->free_ps = now + ser;                  /* D(x, j) = start + S_x(len) */
    s->bytes += p->len;
    s->busy_ps += ser;
    count_packets(s, 1);
    if (n->observer) n->observer(n->observer_ctx, s->id, now, s->free_ps, p->len);
    xfer_rec *r = p->x;
    a2_xfer *x = &r->x;
    if (p->hop == x->apply_hop && x->on_apply) x->on_apply(x, p->off, p->len);
    if (p->hop == 0 && r->injected < x->bytes) inject(n, r, now);
    uint64_t arrive = s->free_ps + s->lat_ps; /* D(x, j) + lat(x): at the next stage */
    if (p->hop + 1 < r->nhops) {
      p->hop++;
      p->ready_ps = arrive;
      stage_enqueue(stage_at(n, r->path[p->hop]), p);
    } else {
      r->done_bytes += p->len;
      pkt_put(n, p);
      if (r->done_bytes == x->bytes) {
        if (x->on_done) x->on_done(x, arrive);
        xfer_put(n, r);
      }
    }
  }
}

a2_code a2_noc_create(uint32_t pkt_bytes, size_t ctx_bytes, a2_noc **out, a2_err *err) {
  if (ctx_bytes > 32768) /* noc.h; many transfers to a slab */
    return a2_err_set(err, A2_E_INTERNAL, NULL, 0, 0,
                      "transfer context of %zu bytes (at most 32768)", ctx_bytes);
  a2_noc *n = calloc(1, sizeof *n);
  if (!n) return a2_err_set(err, A2_E_NOMEM, NULL, 0, 0, "out of memory for the network");
  n->pkt_bytes = pkt_bytes;
  n->xfer_bytes = (sizeof(xfer_rec) + ctx_bytes + A2_XFER_CONTEXT_ALIGN - 1) /
                  A2_XFER_CONTEXT_ALIGN * A2_XFER_CONTEXT_ALIGN;
  *out = n;
  return A2_OK;
}

void a2_noc_free(a2_noc *n) {
  if (!n) return;
  for (uint32_t i = 0; i < n->nstages; i++) free(stage_at(n, i)->heap);
  for (uint32_t i = 0; i < n->nchunks; i++) a2_huge_free(n->chunks[i], A2_HUGE_PAGE);
  free(n->chunks);
  a2_tq_free(&n->held);
  a2_tq_item it;
  while (a2_tq_pop_due(&n->arrivals, UINT64_MAX, &it)) /* a run stopped before its end */
    if (!--((arrival_xfer *)it.u.run.a)->runs) free(it.u.run.a);
  a2_tq_free(&n->arrivals);
  for (uint32_t i = 0; i < n->nslabs; i++) a2_huge_free(n->slabs[i], SLAB_BYTES);
  free(n->slabs);
  free(n);
}

a2_code a2_noc_add_stage(a2_noc *n, a2_stage_kind kind, uint64_t bw, uint64_t lat_ps, int32_t a,
                         int32_t b, uint32_t *id, a2_err *err) {
  if (bw == 0) return a2_err_set(err, A2_E_INTERNAL, NULL, 0, 0, "stage with zero bandwidth");
  if (n->nstages == n->nchunks * CHUNK) { /* a new chunk (cache-line aligned) */
    a2_stage **v = realloc(n->chunks, (n->nchunks + 1) * sizeof *v);
    if (!v) return a2_err_set(err, A2_E_NOMEM, NULL, 0, 0, "out of memory for stages");
    n->chunks = v;
    v[n->nchunks] = a2_huge_alloc(A2_HUGE_PAGE); /* all of it: a huge page */
    if (!v[n->nchunks]) return a2_err_set(err, A2_E_NOMEM, NULL, 0, 0, "out of memory for stages");
    n->nchunks++;
  }
  a2_stage *s = stage_at(n, n->nstages);
  memset(s, 0, sizeof *s);
  s->net = n;
  s->id = n->nstages;
  s->kind = kind;
  s->a = a;
  s->b = b;
  s->bw = bw;
  s->lat_ps = lat_ps;
  s->ser_full = a2_ser_ps(n->pkt_bytes, bw);
  s->ser32 = narrow(s->ser_full);
  s->lat32 = narrow(lat_ps);
  s->iv = s->inl;
  s->icap = INL;
  s->wake_ps = UINT64_MAX;
  if (!n->defer) { /* reservation timing needs no process per stage */
    a2_code rc = a2k_proc_create(a2_stage_kind_name(kind), stage_run, s, &s->proc, err);
    if (rc) return rc;
  }
  *id = n->nstages++;
  return A2_OK;
}

uint32_t a2_noc_stage_count(const a2_noc *n) {
  return n->nstages;
}

a2_stage_kind a2_noc_stage_kind(const a2_noc *n, uint32_t id, int32_t *a, int32_t *b) {
  if (a) *a = stage_at(n, id)->a;
  if (b) *b = stage_at(n, id)->b;
  return stage_at(n, id)->kind;
}

const a2_stage_stats *a2_noc_stage_stats(const a2_noc *n, uint32_t id) {
  a2_stage *s = stage_at(n, id); /* the counters, gathered where the report reads them */
  s->st = (a2_stage_stats){s->bytes, s->busy_ps, (uint64_t)s->packets_hi << 32 | s->packets};
  return &s->st;
}
