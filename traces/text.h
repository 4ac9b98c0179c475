/* The trace text format (docs/program-format.md): reading a file into an
 * a2_program for a given rank count, and writing a program back out. */
#ifndef A2_TEXT_H
#define A2_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "traces/program.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parse and expand `path` for nranks ranks into *k (a2_program_init is done
 * here; free with a2_program_free, also after an error). Errors name
 * path:line:col and what was expected. Does not run semantic validation
 * (traces/validate.h does, before the model is built). */
a2_code a2_program_load(const char *path, uint32_t nranks, a2_program *k, a2_err *err);

/* A value for a `param NAME = EXPR` declaration of the file, given by the
 * caller (`--param NAME=VALUE`); the caller owns the strings. */
typedef struct {
  const char *name;
  int64_t value;
} a2_program_param;
#define A2_PROGRAM_MAX_PARAMS 32

/* a2_program_load with params[0..nparams) replacing the file's `param` values.
 * A name the file does not declare as a param (or given twice) is an error
 * (A2_E_USAGE, naming --param). */
a2_code a2_program_load_params(const char *path, uint32_t nranks, const a2_program_param *params,
                               size_t nparams, a2_program *k, a2_err *err);

/* Same from a string; `name` stands for the file name in errors. */
a2_code a2_program_load_string(const char *text, const char *name, uint32_t nranks, a2_program *k,
                               a2_err *err);

/* Write k in the program format (explicit per-rank programs, literal numbers),
 * so that loading the output gives an identical program, except that each
 * instruction's `line` becomes its line in the written file. */
a2_code a2_program_write(const a2_program *k, FILE *out, a2_err *err);

#ifdef __cplusplus
}
#endif
#endif
