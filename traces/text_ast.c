/* Memory of the trace AST: arrays that grow by doubling (their sizes are
 * bounded by the text, itself at most A2T_MAX_FILE bytes). */
#include <stdlib.h>

#include "traces/text_internal.h"

a2_code a2t_grow(void **v, uint32_t *cap, uint32_t n, size_t size, a2_err *err) {
  if (n < *cap) return A2_OK;
  uint32_t c = *cap ? *cap * 2 : 64;
  if (c <= *cap) return a2_err_set(err, A2_E_LIMIT, NULL, 0, 0, "trace too large");
  void *nv = realloc(*v, (size_t)c * size);
  if (!nv) return a2_err_set(err, A2_E_NOMEM, NULL, 0, 0, "out of memory for the trace");
  *v = nv;
  *cap = c;
  return A2_OK;
}

void a2t_ast_free(a2t_ast *a) {
  free(a->ex);
  free(a->st);
  free(a->dl);
  free(a->pg);
  free(a->text);
  a->ex = NULL;
  a->st = NULL;
  a->dl = NULL;
  a->pg = NULL;
  a->text = NULL;
}
