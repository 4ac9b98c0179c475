#include <stdio.h>

#include "collectives/collective.h"

uint64_t a2_coll_chunk_bytes(uint64_t ub_bytes) {
  uint64_t c = 64 * 1024;
  while (c > 32 && 3 * c > ub_bytes) c /= 2;
  return c;
}

void a2_coll_barrier(a2_tb *tb, uint32_t me, uint32_t P, uint16_t sig, uint32_t row) {
  for (uint32_t peer = 0; peer < P; peer++)
    if (peer != me) a2_tb_notify(tb, sig, peer, (uint64_t)row * P + me, A2_MODE_ADD, 1);
  for (uint32_t src = 0; src < P; src++)
    if (src != me) a2_tb_wait(tb, sig, (uint64_t)row * P + src, A2_MODE_GE, 1);
}

a2_code a2_coll_check_multiple(const a2_coll_params *p, uint64_t multiple, const char *why,
                               a2_err *err) {
  if (p->size_bytes == 0 || p->size_bytes % multiple)
    return a2_err_set(err, A2_E_INPUT, "--size", 0, 0,
                      "%llu bytes is not a positive multiple of %llu bytes (%s)",
                      (unsigned long long)p->size_bytes, (unsigned long long)multiple, why);
  return A2_OK;
}

a2_code a2_check_p_chunks(const a2_coll_params *p, a2_err *err) {
  return a2_coll_check_multiple(p, (uint64_t)a2_dtype_size(p->dtype) * p->nranks,
                                "the slice is cut into P chunks of whole elements", err);
}
