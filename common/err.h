/* Error values shared by every layer: filled where a problem is found,
 * printed once by the CLI. Library code never prints. */
#ifndef A2_ERR_H
#define A2_ERR_H

#ifdef __cplusplus
extern "C" {
#endif

/* Process exit codes (documented in docs/cli.md). */
enum {
  A2_EXIT_OK = 0,      /* run finished and the result matched the golden */
  A2_EXIT_FAIL = 1,    /* functional FAIL: wrong result, race or deadlock */
  A2_EXIT_USAGE = 2,   /* bad flag, config, trace or size */
  A2_EXIT_INTERNAL = 3 /* a bug or a kernel (SystemC) error */
};

/* Error codes returned by library functions (0 = success). */
typedef enum {
  A2_OK = 0,
  A2_E_INPUT = 1,   /* bad user input: file, flag, value */
  A2_E_IO = 2,      /* cannot open / read a file */
  A2_E_NOMEM = 3,   /* allocation failed or a limit was exceeded */
  A2_E_KERNEL = 4,  /* the event kernel reported an error */
  A2_E_INTERNAL = 5 /* invariant broken: a bug */
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
