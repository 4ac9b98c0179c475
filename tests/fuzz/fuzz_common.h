/* Shared helpers of the libFuzzer harnesses (tests/fuzz/, docs/robustness.md).
 * Header-only so that each harness stays one .c file plus this. */
#ifndef A2_FUZZ_COMMON_H
#define A2_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"

/* A NUL-terminated copy of the fuzzer's bytes (the APIs take C strings; an
 * embedded NUL simply ends the text early). */
static inline char *a2f_strndup(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (!s) abort();
  if (size) memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

/* Stops the run with a message libFuzzer shows next to the stack. */
#define A2F_CHECK(cond, ...)                                \
  do {                                                      \
    if (!(cond)) {                                          \
      fprintf(stderr, "a2 fuzz check failed: %s: ", #cond); \
      fprintf(stderr, __VA_ARGS__);                         \
      fputc('\n', stderr);                                  \
      abort();                                              \
    }                                                       \
  } while (0)

/* Every error must be reportable: a known code, a non-empty message,
 * NUL-terminated fields, and a formatted line that fits. */
static inline void a2f_check_err(const a2_err *e, a2_code rc) {
  A2F_CHECK(rc > A2_OK && rc <= A2_E_LIMIT, "code %d", (int)rc);
  A2F_CHECK(e->code == rc, "err.code %d, returned %d", (int)e->code, (int)rc);
  A2F_CHECK(memchr(e->msg, '\0', sizeof e->msg) != NULL, "msg not terminated");
  A2F_CHECK(memchr(e->file, '\0', sizeof e->file) != NULL, "file not terminated");
  A2F_CHECK(e->msg[0] != '\0', "empty message");
  A2F_CHECK(e->line >= 0 && e->col >= 0, "line %d col %d", e->line, e->col);
  char line[1024];
  a2_err_format(e, line, sizeof line);
  A2F_CHECK(line[0] != '\0', "empty formatted error");
}

#endif
