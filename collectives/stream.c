/* Running a generator definition (a2_gen_def): materialised, every
 * (rank, core) body walked to its end into k->progs, or on demand, a
 * program source (traces/program.h) holding the shared context and one
 * resume point per program, each fill walking that body for one bounded
 * batch (builder.h: phases and steps). */
#include <stdlib.h>
#include <string.h>

#include "collectives/collective.h"

typedef struct {
  a2_source src; /* first: the program's k->source points here */
  const a2_gen_def *def;
  uint32_t nranks, ncores, batch;
  a2_tb_resume *at; /* nranks * ncores */
  void *ctx;
} gen_source;

static a2_code fill(a2_source *src, uint32_t rank, uint32_t core, a2_instrs *out, a2_err *err) {
  gen_source *g = (gen_source *)src;
  if (rank >= g->nranks || core >= g->ncores)
    return a2_err_set(err, A2_E_INTERNAL, NULL, 0, 0, "fill: no program (rank %u, core %u)", rank,
                      core);
  a2_tb_resume *at = &g->at[(size_t)rank * g->ncores + core];
  if (at->phase == A2_TB_DONE) return A2_OK;
  a2_tb tb;
  memset(&tb, 0, sizeof tb);
  tb.err = err;
  tb.lazy = 1;
  a2_tb_walk(&tb, out, at, g->batch);
  g->def->body(&tb, g->ctx, rank, core);
  return a2_tb_walked(&tb, at);
}

static void source_free(a2_source *src) {
  gen_source *g = (gen_source *)src;
  free(g->at);
  free(g->ctx);
  free(g);
}

size_t a2_coll_source_bytes(const a2_source *src) {
  const gen_source *g = (const gen_source *)src;
  return sizeof *g + g->def->ctx_bytes + (size_t)g->nranks * g->ncores * sizeof *g->at;
}

a2_code a2_gen_run(const a2_gen_def *def, const a2_coll_params *p, a2_program *k, uint32_t batch,
                   a2_err *err) {
  void *ctx = calloc(1, def->ctx_bytes ? def->ctx_bytes : 1);
  if (!ctx) return a2_err_set(err, A2_E_NOMEM, NULL, 0, 0, "out of memory for a generator");
  a2_tb tb;
  a2_code rc = def->declare(&tb, p, k, ctx, err);
  if (rc == A2_OK) rc = tb.rc;
  if (rc) {
    free(ctx);
    return rc;
  }
  if (batch == 0) { /* materialised */
    for (uint32_t r = 0; r < k->nranks && !rc; r++)
      for (uint32_t c = 0; c < k->ncores && !rc; c++) {
        a2_tb_resume at = {0, 0, 0};
        a2_tb_walk(&tb, a2_program_instrs(k, r, c), &at, 0);
        def->body(&tb, ctx, r, c);
        rc = a2_tb_walked(&tb, &at);
      }
    free(ctx);
    return rc;
  }
  gen_source *g = calloc(1, sizeof *g);
  a2_tb_resume *at = calloc((size_t)k->nranks * k->ncores, sizeof *at);
  if (!g || !at) {
    free(g);
    free(at);
    free(ctx);
    return a2_err_set(err, A2_E_NOMEM, NULL, 0, 0, "out of memory for %u x %u resume states",
                      k->nranks, k->ncores);
  }
  *g = (gen_source){{fill, source_free}, def, k->nranks, k->ncores, batch, at, ctx};
  k->source = &g->src;
  return A2_OK;
}

a2_code a2_coll_materialise(a2_program *k, a2_err *err) {
  a2_source *src = k->source;
  if (!src) return A2_OK;
  uint64_t total = 0;
  for (uint32_t r = 0; r < k->nranks; r++)
    for (uint32_t c = 0; c < k->ncores; c++) {
      a2_instrs *p = a2_program_instrs(k, r, c);
      for (;;) {
        uint32_t before = p->n;
        a2_code rc = src->fill(src, r, c, p, err);
        if (rc) return rc;
        if (p->n == before) break;
        total += p->n - before;
        if (total > A2_TB_MAX_INSTRS) return a2_tb_too_many(err);
      }
    }
  k->source = NULL;
  if (src->free) src->free(src);
  return A2_OK;
}

a2_code a2_coll_generate_batched(const a2_collective *c, const a2_coll_params *p, a2_program *k,
                                 uint32_t batch, a2_err *err) {
  if (batch == 0) batch = 1;
  return a2_gen_run(c->def, p, k, batch, err);
}

a2_code a2_coll_generate(const a2_collective *c, const a2_coll_params *p, a2_program *k, int lazy,
                         a2_err *err) {
  return a2_gen_run(c->def, p, k, lazy ? A2_COLL_BATCH : 0, err);
}
