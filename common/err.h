/* Error values shared by every layer: filled where a problem is found,
 * printed once by the CLI. Library code never prints (the one exception is
 * running out of memory inside a simulation event: common/oom.h).
 *
 * The failure contract of the whole program:
 *   - every function that can fail returns an a2_code and fills an a2_err
 *     (when given one) with the code, the place (file:line:col or a flag)
 *     and what was expected; the commands print it once and exit with
 *     a2_err_exit_code(code);
 *   - a constructor (a2_sim_create, a2_noc_create, a2_topo_build,
 *     a2_program_load, a2_config_load, ...) that fails half-way frees what it
 *     built: *out is NULL (or the object passed in is left safe to free, as
 *     each header says) and the caller owns nothing new;
 *   - memory that runs out where a caller can take an error back is
 *     A2_E_NOMEM naming what was being allocated (exit 3); where no caller
 *     can (inside an event of a running simulation) it is a2_out_of_memory
 *     (common/oom.h): the same message and exit status 3;
 *   - a documented limit of an input (a file's size, nesting, instruction
 *     and step counts) is A2_E_LIMIT (exit 2): the input is refused, the
 *     machine did not run out of anything;
 *   - no abort() on a path input can reach: a broken invariant is
 *     A2_E_INTERNAL (exit 3). */
#ifndef A2_ERR_H
#define A2_ERR_H

#ifdef __cplusplus
extern "C" {
#endif

/* Process exit codes (README.md, docs/cli.md, docs/robustness.md). */
enum {
  A2_EXIT_OK = 0,      /* run finished and the result matched the golden */
  A2_EXIT_FAIL = 1,    /* FAIL, RACE, DEADLOCK, TIMEOUT, EVENT_LIMIT, UNROUTED */
  A2_EXIT_USAGE = 2,   /* bad flag, config, trace, size, or an input past a limit */
  A2_EXIT_INTERNAL = 3 /* out of memory, a bug, or an event-kernel (SystemC) error */
};

/* Error codes returned by library functions (0 = success). */
typedef enum {
  A2_OK = 0,
  A2_E_INPUT = 1,    /* bad user input: file, flag, value (exit 2) */
  A2_E_IO = 2,       /* cannot open / read / write a file (exit 2) */
  A2_E_NOMEM = 3,    /* an allocation failed: out of memory (exit 3) */
  A2_E_KERNEL = 4,   /* the event kernel reported an error (exit 3) */
  A2_E_INTERNAL = 5, /* invariant broken: a bug (exit 3) */
  A2_E_LIMIT = 6     /* an input passes a documented limit (exit 2) */
} a2_code;

typedef struct a2_err {
  a2_code code;
  char file[256]; /* "" when the error has no file (e.g. a CLI flag) */
  int line;       /* 1-based; 0 = unknown */
  int col;        /* 1-based; 0 = unknown */
  char msg[512];  /* what was expected / what is wrong; no trailing newline */
} a2_err;

/* Fill *e (if non-NULL) and return code. file may be NULL. */
a2_code a2_err_set(a2_err *e, a2_code code, const char *file, int line, int col, const char *fmt,
                   ...) __attribute__((format(printf, 6, 7)));

/* Format as "file:line:col: error: msg" (parts omitted when unknown). */
void a2_err_format(const a2_err *e, char *out, unsigned long out_size);

/* Map an error code to the process exit code. */
int a2_err_exit_code(a2_code code);

#ifdef __cplusplus
}
#endif
#endif
