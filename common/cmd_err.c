/* The commands' error lines (see cmd_err.h). */
#include "common/cmd_err.h"

#include <stdarg.h>
#include <stdio.h>

void a2_cmd_error(const a2_err *e) {
  char buf[1024];
  a2_err_format(e, buf, sizeof buf);
  fprintf(stderr, "a2a3sim: %s\n", buf);
}

static void vprint(const char *flag, const char *fmt, va_list ap) {
  char msg[512];
  vsnprintf(msg, sizeof msg, fmt, ap);
  if (flag)
    fprintf(stderr, "a2a3sim: error: %s: %s\n", flag, msg);
  else
    fprintf(stderr, "a2a3sim: error: %s\n", msg);
}

int a2_cmd_usage_error(const char *flag, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprint(flag, fmt, ap);
  va_end(ap);
  return A2_EXIT_USAGE;
}

int a2_cmd_oom_error(const char *flag, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprint(flag, fmt, ap);
  va_end(ap);
  return A2_EXIT_INTERNAL;
}
