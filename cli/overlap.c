/* The overlap card of a fused GEMM + collective (a registry row of kind
 * A2_KIND_FUSED: gemm_allreduce, allgather_gemm): the
 * compute-only and communication-only programs (a2_coll_part) are run, each
 * in a child process, beside the run itself, which is the pipelined time.
 * Sequential = compute-only + comm-only; exposed communication = pipelined -
 * compute-only; overlap efficiency = hidden communication / comm-only, with
 * hidden = sequential - pipelined (pto-isa's gemm_ar README). */
#include <string.h>

#include "cli/cli.h"
#include "procs/procs.h"

/* One side, in this process: its simulated time; 1 when it cannot run or
 * fails (not finished, a mismatch, a race). */
static int side_here(const a2_run_opts *o, const a2_config *cfg, uint32_t part, uint64_t *t_ps) {
  a2_run_opts c = *o;
  c.part = part;
  a2_err e = {0};
  a2_quiet_run r;
  if (a2_run_quietly(&c, cfg, &r, &e)) {
    if (e.msg[0]) a2_cmd_error(&e);
    return 1;
  }
  *t_ps = r.end_ps;
  if (!r.passed) {
    fprintf(stderr, "a2a3sim: %s: the %s-only run did not pass\n", o->algo,
            part == A2_PART_COMPUTE ? "compute" : "communication");
    return 1;
  }
  return 0;
}

typedef struct {
  const a2_run_opts *o;
  const a2_config *cfg;
  uint32_t part;
} side_args;

static int side_child(void *ctx, void *out) {
  const side_args *a = ctx;
  return side_here(a->o, a->cfg, a->part, out);
}

/* side_here in a child process (a simulation's state belongs to the process). */
static int side(const a2_run_opts *o, const a2_config *cfg, uint32_t part, uint64_t *t_ps) {
  side_args a = {o, cfg, part};
  int rc = a2_procs_call(side_child, &a, t_ps, sizeof *t_ps);
  return rc < 0 ? 1 : rc;
}

int a2_overlap_measure(const a2_run_opts *o, const a2_config *cfg, a2_overlap *ov) {
  memset(ov, 0, sizeof *ov);
  const a2_collective *c = o->algo ? a2_collective_find(o->algo) : NULL;
  if (!c || c->kind != A2_KIND_FUSED || o->part != A2_PART_WHOLE) return 0;
  if (side(o, cfg, A2_PART_COMPUTE, &ov->compute_ps) || side(o, cfg, A2_PART_COMM, &ov->comm_ps))
    return A2_EXIT_FAIL;
  a2_coll_params p = a2_run_coll_params(o, cfg);
  ov->flops = c->flops(&p); /* from the run's M, K, N */
  ov->valid = true;
  return 0;
}

uint64_t a2_overlap_compute_in(const a2_sim *sim, uint32_t nranks) {
  uint64_t t = 0;
  for (uint32_t r = 0; r < nranks; r++) {
    uint64_t e = a2_sim_rank_stats(sim, r)->cube_end_ps;
    if (e > t) t = e;
  }
  return t;
}

void a2_overlap_text(const a2_overlap *ov, uint64_t pipelined_ps, uint64_t compute_in_pipe_ps,
                     FILE *out) {
  if (!ov->valid) return;
  double comp = (double)ov->compute_ps, comm = (double)ov->comm_ps, pipe = (double)pipelined_ps;
  double seq = comp + comm, hidden = seq - pipe;
  fprintf(out, "overlap card (runs of the same program)\n");
  fprintf(out, "  compute-only          %12.3f us\n", comp / 1e6);
  fprintf(out, "  comm-only             %12.3f us\n", comm / 1e6);
  fprintf(out, "  sequential            %12.3f us   (compute-only + comm-only)\n", seq / 1e6);
  fprintf(out, "  pipelined             %12.3f us   (this run)\n", pipe / 1e6);
  fprintf(out, "  compute in pipelined  %12.3f us   (this run's last cube-core completion)\n",
          (double)compute_in_pipe_ps / 1e6);
  fprintf(out, "  exposed communication %12.3f us   (pipelined - compute-only)\n",
          (pipe - comp) / 1e6);
  fprintf(out, "  overlap efficiency    %12.1f %%    (hidden comm %.3f us / comm-only)\n",
          comm > 0 ? 100.0 * hidden / comm : 0.0, hidden / 1e6);
  fprintf(out, "  TFLOPS                %12.3f      (2 M K N over all ranks / pipelined)\n",
          pipe > 0 ? ov->flops / (pipe * 1e-12) / 1e12 : 0.0);
}
