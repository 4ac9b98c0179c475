/* The commands' error lines (see cmd_err.h). */
#include "common/cmd_err.h"

#include <stdarg.h>
#include <stdio.h>

void a2_cmd_error(const a2_err *e) {
  char buf[1024];
  a2_err_format(e, buf, sizeof buf);
  fprintf(stderr, "a2a3sim: %s\n", buf);
}

int a2_cmd_usage_error(const char *flag, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (flag)
    fprintf(stderr, "a2a3sim: error: %s: %s\n", flag, msg);
  else
    fprintf(stderr, "a2a3sim: error: %s\n", msg);
  return A2_EXIT_USAGE;
}
