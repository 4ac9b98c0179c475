/* Public entry points of the trace reader (traces/text.h): read the text,
 * parse it into an AST, expand the AST for the requested P. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/text.h"
#include "traces/text_internal.h"

/* Every override names a `param` of the file, once. */
static a2_code check_params(const a2t_ast *a, const char *name, const a2_program_param *params,
                            size_t nparams, a2_err *err) {
  if (nparams > A2_PROGRAM_MAX_PARAMS)
    return a2_err_set(err, A2_E_INPUT, "--param", 0, 0, "more than %d values",
                      A2_PROGRAM_MAX_PARAMS);
  for (size_t i = 0; i < nparams; i++) {
    for (size_t j = 0; j < i; j++)
      if (!strcmp(params[i].name, params[j].name))
        return a2_err_set(err, A2_E_INPUT, "--param", 0, 0, "%s given twice", params[i].name);
    uint32_t d = 0;
    while (d < a->nparams && strcmp(a->params[d].name, params[i].name)) d++;
    if (d < a->nparams) continue;
    char list[256] = "";
    for (uint32_t q = 0; q < a->nparams; q++) {
      size_t at = strlen(list);
      snprintf(list + at, sizeof list - at, "%s%s", q ? ", " : "", a->params[q].name);
    }
    if (!a->nparams)
      return a2_err_set(err, A2_E_INPUT, "--param", 0, 0,
                        "%s: %s declares no 'param' (add 'param %s = VALUE' to the file)",
                        params[i].name, name, params[i].name);
    return a2_err_set(err, A2_E_INPUT, "--param", 0, 0,
                      "%s: %s declares no 'param %s' (its params: %s)", params[i].name, name,
                      params[i].name, list);
  }
  return A2_OK;
}

static a2_code load_text(const char *text, size_t len, const char *name, uint32_t nranks,
                         const a2_program_param *params, size_t nparams, a2_program *k,
                         a2_err *err) {
  a2t_ast ast;
  memset(k, 0, sizeof *k); /* a2_program_free is safe whatever happens below */
  if (len > A2T_MAX_FILE)
    return a2_err_set(err, A2_E_LIMIT, name, 0, 0, "trace is larger than %u MiB",
                      A2T_MAX_FILE >> 20);
  a2_code rc = a2t_parse(text, len, name, &ast, err);
  if (!rc) rc = check_params(&ast, name, params, nparams, err);
  if (!rc) rc = a2t_expand(&ast, name, nranks, params, nparams, k, err);
  a2t_ast_free(&ast);
  return rc;
}

a2_code a2_program_load_string(const char *text, const char *name, uint32_t nranks, a2_program *k,
                               a2_err *err) {
  /* strnlen: a hostile caller's huge string is refused without reading it all */
  return load_text(text, strnlen(text, A2T_MAX_FILE + 1), name ? name : "<string>", nranks, NULL, 0,
                   k, err);
}

a2_code a2_program_load(const char *path, uint32_t nranks, a2_program *k, a2_err *err) {
  return a2_program_load_params(path, nranks, NULL, 0, k, err);
}

a2_code a2_program_load_params(const char *path, uint32_t nranks, const a2_program_param *params,
                               size_t nparams, a2_program *k, a2_err *err) {
  memset(k, 0, sizeof *k);
  FILE *f = fopen(path, "rb");
  if (!f) return a2_err_set(err, A2_E_IO, path, 0, 0, "cannot open: %s", strerror(errno));
  /* read at most one byte past the limit, so that too large is detected
   * without trusting the file's reported size (pipes, /proc files) */
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  a2_code rc = buf ? A2_OK : a2_err_set(err, A2_E_NOMEM, path, 0, 0, "out of memory");
  while (!rc) {
    if (len == cap) {
      size_t nc = cap * 2 > A2T_MAX_FILE + 1 ? A2T_MAX_FILE + 1 : cap * 2;
      char *nb = nc > cap ? realloc(buf, nc) : NULL;
      if (!nb) {
        rc = nc > cap ? a2_err_set(err, A2_E_NOMEM, path, 0, 0, "out of memory")
                      : a2_err_set(err, A2_E_LIMIT, path, 0, 0, "trace is larger than %u MiB",
                                   A2T_MAX_FILE >> 20);
        break;
      }
      buf = nb;
      cap = nc;
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0) {
      if (ferror(f)) rc = a2_err_set(err, A2_E_IO, path, 0, 0, "read error: %s", strerror(errno));
      break;
    }
  }
  fclose(f);
  if (!rc) rc = load_text(buf, len, path, nranks, params, nparams, k, err);
  free(buf);
  return rc;
}
