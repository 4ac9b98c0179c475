/* Where the program of a run comes from: a built-in generator (--algo) or a
 * program file (--program), and how reports describe it. A file written by
 * `gen` names its built-in (the `builtin` line), so it is described exactly as
 * the built-in is. */
#include <string.h>

#include "cli/cli.h"
#include "traces/text.h"

/* nccl-tests factors by the kind of result (hand-written traces). */
static void factors_of(const a2_golden *g, uint32_t P, double *size, double *bus) {
  double p = P;
  *size = 1;
  *bus = 1;
  switch (g->kind) {
  case A2_GOLDEN_ALLREDUCE: *bus = 2 * (p - 1) / p; break;
  case A2_GOLDEN_ALLGATHER:
  case A2_GOLDEN_REDUCE_SCATTER:
  case A2_GOLDEN_ALLTOALL:
  case A2_GOLDEN_GATHER: /* nccl-tests gather / scatter: P blocks, (P - 1) / P */
  case A2_GOLDEN_SCATTER:
    *size = p;
    *bus = (p - 1) / p;
    break;
  case A2_GOLDEN_NONE: *size = 0; break;
  default: break;
  }
}

static void describe_builtin(const a2_collective *c, const a2_coll_params *p, const a2_config *cfg,
                             a2_run_desc *d) {
  snprintf(d->name, sizeof d->name, "%s", c->name);
  d->size_bytes = c->out_bytes ? c->out_bytes(p) : p->size_bytes;
  d->size_factor = c->size_factor(p->nranks);
  d->busbw_factor = c->busbw_factor(p->nranks);
  c->card(p, &d->card);
  d->has_card = true;
  d->closed_form_ps = c->closed_form_ps(p, cfg);
  a2_abg_of(cfg, p->nranks, &d->abg);
  d->hccl_ps = a2_hccl_cost_ps(c->name, p->nranks, p->size_bytes, &d->abg, &d->hccl_formula);
}

a2_coll_params a2_run_coll_params(const a2_run_opts *o, const a2_config *cfg) {
  a2_coll_params p = {.nranks = o->nranks,
                      .size_bytes = o->size_bytes,
                      .cores = o->cores,
                      .op = o->op,
                      .dtype = o->dtype,
                      .ub_bytes = cfg->ub_bytes,
                      .seed = o->seed,
                      .root = o->root,
                      .max_cores = cfg->vector_cores,
                      .dma_queues = cfg->sdma_queues,
                      .max_cube = cfg->cube_cores,
                      .part = o->part,
                      .m = o->m,
                      .k = o->k,
                      .n = o->n,
                      .compute_cores = o->compute_cores,
                      .comm_cores = o->comm_cores};
  a2_coll_set_servers(cfg, &p);
  return p;
}

static int from_algo(const a2_run_opts *o, const a2_config *cfg, a2_program *k, a2_run_desc *d) {
  const a2_collective *c = a2_collective_find(o->algo);
  if (!c) return a2_cmd_usage_error("--algo", "unknown algorithm '%s' (see a2a3sim list)", o->algo);
  a2_coll_params p = a2_run_coll_params(o, cfg);
  a2_err e = {0};
  /* Programs produced on demand (k->source): memory does not grow with the
   * instruction count. `gen` makes them whole (a2_coll_materialise). */
  if ((c->check && c->check(&p, &e)) || a2_coll_generate(c, &p, k, 1, &e)) {
    a2_cmd_error(&e);
    return a2_err_exit_code(e.code);
  }
  describe_builtin(c, &p, cfg, d);
  return 0;
}

static int from_trace(const a2_run_opts *o, const a2_config *cfg, a2_program *k, a2_run_desc *d) {
  a2_err e = {0};
  if (a2_program_load_params(o->program_file, o->nranks, o->params, o->nparams, k, &e)) {
    a2_cmd_error(&e);
    return a2_err_exit_code(e.code);
  }
  k->lines_are_file_lines = 1;
  const a2_collective *c = k->algo[0] ? a2_collective_find(k->algo) : NULL;
  if (c) {
    a2_coll_params p = {.nranks = k->nranks,
                        .size_bytes = k->size_bytes,
                        .cores = k->ncores,
                        .op = (a2_reduce_op)k->op,
                        .dtype = k->dtype,
                        .ub_bytes = cfg->ub_bytes,
                        .seed = k->seed,
                        .root = k->root};
    a2_coll_set_servers(cfg, &p);
    if (c->kind != A2_KIND_COMM) { /* the GEMM built-ins: the shape and the cores */
      p.m = k->gemm.m;
      p.k = k->gemm.k;
      p.n = k->gemm.n;
      p.compute_cores = k->ncube;
      p.comm_cores = k->ncores - k->ncube;
    }
    describe_builtin(c, &p, cfg, d);
    return 0;
  }
  snprintf(d->name, sizeof d->name, "%s", o->program_file);
  d->params = o->params;
  d->nparams = o->nparams;
  d->size_bytes = k->golden.bytes;
  factors_of(&k->golden, k->nranks, &d->size_factor, &d->busbw_factor);
  d->has_card = k->has_card;
  d->card = (a2_card){(double)k->card_read_bytes, (double)k->card_write_bytes, k->card_rounds};
  d->closed_form_ps = 0;
  d->hccl_ps = -1;
  return 0;
}

int a2_build_program(const a2_run_opts *o, const a2_config *cfg, a2_program *k, a2_run_desc *d) {
  memset(d, 0, sizeof *d);
  return o->program_file ? from_trace(o, cfg, k, d) : from_algo(o, cfg, k, d);
}
