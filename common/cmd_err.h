/* How the a2a3sim commands (cli/, sweep/) print errors: one line on stderr,
 * "a2a3sim: error: ..." with the flag or file:line:col when known. Library
 * code returns an a2_err instead (common/err.h); only the commands print. */
#ifndef A2_CMD_ERR_H
#define A2_CMD_ERR_H

#include "common/err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Print e as "a2a3sim: " + a2_err_format(e). */
void a2_cmd_error(const a2_err *e);
/* A usage error about a flag (NULL: about the command line as a whole):
 * prints "a2a3sim: error: FLAG: message" and returns A2_EXIT_USAGE. */
int a2_cmd_usage_error(const char *flag, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The same line for an allocation that failed while handling FLAG ("out of
 * memory ..."): returns A2_EXIT_INTERNAL (out of memory is exit 3, not a
 * usage error: common/err.h). */
int a2_cmd_oom_error(const char *flag, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif
#endif
