/* Child processes for the commands that run the simulator as many
 * processes (`a2a3sim sweep`, `a2a3sim calibrate`): SystemC runs one
 * simulation per process, so each run is this same binary started again.
 *   spawn.c  signals, starting one child with its output piped, running one
 *            to completion, this binary's path
 *   pool.c   running many children, at most N at once, each one's output
 *            handed back by its index
 *   call.c   running one function of this process in a forked child and
 *            reading back its fixed-size result
 * SIGINT, SIGTERM and SIGHUP only set a flag (and wake poll through a
 * self-pipe): the command then stops its children, reaps every one (no
 * zombies) and dies of the same signal (a2_procs_reraise). */
#ifndef A2_PROCS_H
#define A2_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A child's captured stdout or stderr: data[len] is always '\0' once
 * something was appended; free(data) when done. */
typedef struct {
  char *data;
  size_t len, cap;
} a2_procs_buf;

/* A copy of b's first line (without its newline), malloc'd: the caller
 * frees it. NULL when b is empty or memory runs out. */
char *a2_procs_buf_first_line(const a2_procs_buf *b);

/* Catch SIGINT, SIGTERM and SIGHUP (noted, not acted on, so that children
 * can be reaped); 0, or -1 (errno) when they cannot be installed.
 * a2_procs_interrupted() returns the signal caught, 0 if none. */
int a2_procs_signals_install(void);
int a2_procs_interrupted(void);
/* Die of the signal that interrupted us, after the children are reaped. */
void a2_procs_reraise(int sig);

/* Start `file` (a path, or searched in PATH when `search_path`) with argv
 * in `cwd` (NULL: ours), stdin /dev/null, stdout and stderr to pipes whose
 * read ends are *out_fd and *err_fd. 0, or -1 (errno) when it cannot start. */
int a2_procs_spawn(const char *file, char *const argv[], bool search_path, const char *cwd,
                   pid_t *pid, int *out_fd, int *err_fd);
/* Run argv[0] to completion, capturing both streams; *status as waitpid.
 * Returns 0, -1 when it could not start (errno), or the signal that
 * interrupted the wait (the child is killed and reaped). */
int a2_procs_run_capture(char *const argv[], bool search_path, const char *cwd, a2_procs_buf *out,
                         a2_procs_buf *err, int *status);

/* This binary: the file /proc/self/exe links to (so that a tool that runs
 * us - valgrind, say - is not what the children run), else the link itself. */
void a2_procs_self_path(char *out, size_t n);

/* What a pool runs: job i's argv (argv[0] is its name; the program started
 * is `file`), NULL when out of memory; freed by the pool with
 * a2_procs_argv_free. */
typedef char **(*a2_procs_argv_fn)(size_t job, void *ctx);
/* Job i finished: its wait status and what it wrote (the buffers are
 * reused after the call returns). Called in the order jobs finish, which
 * varies; a caller that keeps results by `job` gets the same results
 * whatever the order. */
typedef void (*a2_procs_done_fn)(size_t job, int wait_status, const a2_procs_buf *out,
                                 const a2_procs_buf *err, void *ctx);
/* Progress after each finished job (done of total), may be NULL. */
typedef void (*a2_procs_progress_fn)(size_t done, size_t total, void *ctx);

typedef struct {
  const char *file;  /* the program every job runs (a path) */
  size_t njobs;      /* jobs 0..njobs-1 */
  unsigned parallel; /* at most this many at once (>= 1) */
  a2_procs_argv_fn argv_of;
  a2_procs_done_fn done;
  a2_procs_progress_fn progress; /* NULL: none */
  void *ctx;
  const char *command; /* for error lines: "sweep" -> "a2a3sim: error: sweep: ..." */
  const char *noun;    /* what a job is called in them: "point", "run" */
} a2_procs_pool;

/* Run every job of the pool, jobs started in index order. Returns 0, an
 * exit code after printing an error (a job that cannot start: A2_EXIT_INTERNAL),
 * or (negated) the signal that interrupted it; every child is reaped
 * before it returns. Needs a2_procs_signals_install first for signals to
 * interrupt it. */
int a2_procs_pool_run(const a2_procs_pool *pool);

/* Run fn(ctx, out) in a forked child and copy the `size` bytes it leaves in
 * out back into the caller's out (a simulation's state belongs to its
 * process, so a command that needs a second simulation beside its own runs
 * it this way). stdout and stderr are flushed first. Returns fn's return
 * value (the child's exit code, 0..255), or -1 when the child cannot be
 * started, dies of a signal or does not hand back its result (out is then
 * zeroed). */
typedef int (*a2_procs_call_fn)(void *ctx, void *out);
int a2_procs_call(a2_procs_call_fn fn, void *ctx, void *out, size_t size);

/* Free a NULL-terminated argv of malloc'd strings (NULL is fine). */
void a2_procs_argv_free(char **argv);

#ifdef __cplusplus
}
#endif
#endif
