/* The trace text format (docs/trace-format.md): reading a file into an
 * a2_kernel for a given rank count, and writing a kernel back out. */
#ifndef A2_TEXT_H
#define A2_TEXT_H

#include <stdio.h>

#include "traces/program.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parse and expand `path` for nranks ranks into *k (a2_kernel_init is done
 * here; free with a2_kernel_free, also after an error). Errors name
 * path:line:col and what was expected. Does not run semantic validation
 * (traces/validate.h does, before the model is built). */
a2_code a2_trace_load(const char *path, uint32_t nranks, a2_kernel *k, a2_err *err);

/* Same from a string; `name` stands for the file name in errors. */
a2_code a2_trace_load_string(const char *text, const char *name, uint32_t nranks, a2_kernel *k,
                             a2_err *err);

/* Write k in the trace format (explicit per-rank programs, literal numbers),
 * so that loading the output gives an identical kernel, except that each
 * instruction's `line` becomes its line in the written file. */
a2_code a2_trace_write(const a2_kernel *k, FILE *out, a2_err *err);

#ifdef __cplusplus
}
#endif
#endif
