#include "traces/program.h"

#include <stdlib.h>
#include <string.h>

const char *const a2_dtype_names[A2_DTYPE_COUNT] = {
    [A2_FP32] = "fp32",
    [A2_FP16] = "fp16",
    [A2_INT32] = "int32",
};

const char *const a2_op_names[A2_OP_COUNT_] = {
    [A2_OP_LOAD] = "load",
    [A2_OP_STORE] = "store",
    [A2_OP_RLOAD] = "remote_load",
    [A2_OP_RSTORE] = "remote_store",
    [A2_OP_NOTIFY] = "notify",
    [A2_OP_WAIT] = "wait",
    [A2_OP_VADD] = "vadd",
    [A2_OP_VMAX] = "vmax",
    [A2_OP_VMIN] = "vmin",
    [A2_OP_VMUL] = "vmul",
    [A2_OP_COMPUTE] = "compute",
    [A2_OP_PUT] = "put",
    [A2_OP_GET] = "get",
    [A2_OP_TLOAD] = "tload",
    [A2_OP_TEXTRACT] = "textract",
    [A2_OP_TMATMUL] = "tmatmul",
    [A2_OP_TFIXPIPE] = "tstore_fixpipe",
};

static const char *const space_names[A2_SPACES] = {"ub", "l1", "l0a", "l0b", "l0c"};
const char *a2_space_name(a2_space s) {
  return (unsigned)s < A2_SPACES ? space_names[s] : "?";
}

const char *a2_dtype_name(a2_dtype t) {
  return (unsigned)t < A2_DTYPE_COUNT ? a2_dtype_names[t] : "?";
}

static const char *const golden_names[A2_GOLDEN_KINDS] = {
    "none",
    "allreduce",
    "broadcast",
    "allgather",
    "reduce_scatter",
    "all_to_all",
    "bcast_allreduce_allgather",
    "gemm",
    "gemm_allreduce",
    "allgather_gemm",
    "reduce",
    "gather",
    "scatter",
};
static const char *const reduce_names[A2_REDUCE_OPS] = {"sum", "max", "min", "prod"};

const char *a2_golden_name(a2_golden_kind k) {
  return (unsigned)k < A2_GOLDEN_KINDS ? golden_names[k] : "?";
}

const char *a2_reduce_name(a2_reduce_op op) {
  return (unsigned)op < A2_REDUCE_OPS ? reduce_names[op] : "?";
}

const char *a2_op_name(a2_opcode op) {
  return (unsigned)op < A2_OP_COUNT_ ? a2_op_names[op] : "?";
}

/* splitmix64: a well-mixed hash of (seed, rank, index). */
static uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

float a2_pattern_value(uint32_t seed, uint32_t rank, uint64_t index) {
  uint64_t h = mix(((uint64_t)seed << 32 | rank) ^ mix(index));
  int v = (int)(h % 1024u) - 512; /* [-512, 511] */
  return (float)v / 64.0f;
}

a2_code a2_program_init(a2_program *k, uint32_t nranks, uint32_t ncores, a2_err *err) {
  memset(k, 0, sizeof *k);
  k->nranks = nranks;
  k->ncores = ncores;
  k->progs = calloc((size_t)nranks * ncores, sizeof *k->progs);
  if (!k->progs)
    return a2_err_set(err, A2_E_NOMEM, NULL, 0, 0, "out of memory for %u x %u programs", nranks,
                      ncores);
  return A2_OK;
}

void a2_program_free(a2_program *k) {
  if (k->source && k->source->free) k->source->free(k->source);
  k->source = NULL;
  if (!k->progs) return;
  for (size_t i = 0; i < (size_t)k->nranks * k->ncores; i++)
    if (!k->progs[i].lent) free(k->progs[i].v);
  free(k->progs);
  k->progs = NULL;
}

a2_code a2_instrs_grow(a2_instrs *p, a2_err *err) {
  if (p->n < p->cap) return A2_OK;
  uint32_t cap = p->cap ? p->cap * 2 : 16;
  a2_instr *v = p->lent ? malloc((size_t)cap * sizeof *v) : realloc(p->v, (size_t)cap * sizeof *v);
  if (!v) return a2_err_set(err, A2_E_NOMEM, NULL, 0, 0, "out of memory for program");
  if (p->lent && p->n) memcpy(v, p->v, (size_t)p->n * sizeof *v);
  p->v = v;
  p->cap = cap;
  p->lent = 0;
  return A2_OK;
}

a2_code a2_instrs_push(a2_instrs *p, const a2_instr *in, a2_err *err) {
  a2_instr *v = a2_instrs_add(p, err);
  if (!v) return A2_E_NOMEM;
  memcpy(v, in, sizeof *in);
  return A2_OK;
}
