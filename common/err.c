#include "common/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

a2_code a2_err_set(a2_err *e, a2_code code, const char *file, int line, int col, const char *fmt,
                   ...) {
  if (!e) return code;
  e->code = code;
  snprintf(e->file, sizeof e->file, "%s", file ? file : "");
  e->line = line;
  e->col = col;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  va_end(ap);
  return code;
}

void a2_err_format(const a2_err *e, char *out, unsigned long out_size) {
  if (e->file[0] == '-') /* a command-line flag, e.g. "--set" */
    snprintf(out, out_size, "error: %s: %s", e->file, e->msg);
  else if (e->file[0] && e->line > 0 && e->col > 0)
    snprintf(out, out_size, "%s:%d:%d: error: %s", e->file, e->line, e->col, e->msg);
  else if (e->file[0] && e->line > 0)
    snprintf(out, out_size, "%s:%d: error: %s", e->file, e->line, e->msg);
  else if (e->file[0])
    snprintf(out, out_size, "%s: error: %s", e->file, e->msg);
  else
    snprintf(out, out_size, "error: %s", e->msg);
}

int a2_err_exit_code(a2_code code) {
  switch (code) {
  case A2_OK: return A2_EXIT_OK;
  case A2_E_INPUT:
  case A2_E_IO:
  case A2_E_LIMIT: return A2_EXIT_USAGE;
  case A2_E_NOMEM:
  default: return A2_EXIT_INTERNAL;
  }
}
