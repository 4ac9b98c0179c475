/* a2a3sim sweep: one finished point -> one row. Numbers are copied as the
 * text `run --json` printed (yajl_tree keeps it), never re-formatted
 * through a double, so sweep.csv is byte-identical from run to run. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <yajl/yajl_tree.h>

#include "sweep/sweep.h"

static yajl_val get(yajl_val root, const char *a, const char *b) {
  const char *path[3] = {a, b, NULL};
  return yajl_tree_get(root, path, yajl_t_any);
}

/* The number's text, or NULL (missing, null, not a number). */
static char *num_text(yajl_val v) {
  return YAJL_IS_NUMBER(v) ? a2_sweep_strdup(YAJL_GET_NUMBER(v)) : NULL;
}

/* A ps value (an integer as text, maybe negative) as exact decimal us:
 * 393742000 -> "393.742000"; NULL when v is not a number. */
static char *us_text(yajl_val v) {
  if (!YAJL_IS_NUMBER(v)) return NULL;
  double d = YAJL_GET_DOUBLE(v);
  long long ps = YAJL_IS_INTEGER(v) ? YAJL_GET_INTEGER(v) : (long long)(d < 0 ? d - 0.5 : d + 0.5);
  unsigned long long a = ps < 0 ? (unsigned long long)-ps : (unsigned long long)ps;
  char buf[48];
  snprintf(buf, sizeof buf, "%s%llu.%06llu", ps < 0 ? "-" : "", a / 1000000, a % 1000000);
  return a2_sweep_strdup(buf);
}

static void set_error(a2_sweep_row *r, const char *msg) {
  free(r->error);
  r->error = a2_sweep_strdup(msg);
}

/* Exit 0 or 1: the JSON is the result. false when it is not readable. */
static bool from_json(a2_sweep_row *r, const a2_procs_buf *out) {
  char why[256] = "";
  yajl_val root = out->len ? yajl_tree_parse(out->data, why, sizeof why) : NULL;
  if (!root || !YAJL_IS_OBJECT(root)) {
    yajl_tree_free(root);
    return false;
  }
  yajl_val st = get(root, "status", NULL), time_ps = get(root, "time_ps", NULL);
  r->ok = YAJL_IS_TRUE(get(root, "ok", NULL));
  snprintf(r->status, sizeof r->status, "%s", YAJL_IS_STRING(st) ? YAJL_GET_STRING(st) : "?");
  r->time_ns = num_text(get(root, "time_ns", NULL));
  r->algbw_gbps = num_text(get(root, "algbw_gbps", NULL));
  r->busbw_gbps = num_text(get(root, "busbw_gbps", NULL));
  r->remote_read = num_text(get(root, "measured", "remote_read_bytes_per_rank"));
  r->remote_write = num_text(get(root, "measured", "remote_write_bytes_per_rank"));
  r->barrier_rounds = num_text(get(root, "measured", "barrier_rounds"));
  if (YAJL_IS_INTEGER(time_ps)) r->time_ps = (uint64_t)YAJL_GET_INTEGER(time_ps);
  if (YAJL_IS_OBJECT(get(root, "overlap", NULL))) { /* a fused built-in's overlap card */
    r->compute_us = us_text(get(root, "overlap", "compute_only_ps"));
    r->comm_us = us_text(get(root, "overlap", "comm_only_ps"));
    r->sequential_us = us_text(get(root, "overlap", "sequential_ps"));
    r->exposed_us = us_text(get(root, "overlap", "exposed_comm_ps"));
    r->overlap_eff = num_text(get(root, "overlap", "overlap_efficiency"));
    r->tflops = num_text(get(root, "overlap", "tflops"));
  }
  bool complete = r->time_ns && r->algbw_gbps && r->busbw_gbps && r->remote_read &&
                  r->remote_write && r->barrier_rounds && YAJL_IS_INTEGER(time_ps) &&
                  YAJL_IS_STRING(st);
  yajl_tree_free(root);
  return complete;
}

void a2_sweep_row_fill(a2_sweep_row *r, int wait_status, const a2_procs_buf *out,
                       const a2_procs_buf *err) {
  a2_sweep_row_free(r);
  r->ran = true;
  r->exit_code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
  r->error = a2_procs_buf_first_line(err);
  char msg[128];
  switch (r->exit_code) {
  case A2_EXIT_OK:
  case A2_EXIT_FAIL:
    if (from_json(r, out) && r->ok == (r->exit_code == A2_EXIT_OK)) return;
    a2_sweep_row_free(r);
    r->ran = true;
    r->exit_code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
    snprintf(r->status, sizeof r->status, "ERROR");
    char *line = a2_procs_buf_first_line(err);
    size_t n = strlen(line ? line : "") + 128;
    if ((r->error = malloc(n)))
      snprintf(r->error, n, "exit status %d without a readable --json result%s%s", r->exit_code,
               line ? ": " : "", line ? line : "");
    free(line);
    return;
  case A2_EXIT_USAGE: /* the collective (or the model) refused the point */
    snprintf(r->status, sizeof r->status, "REFUSED");
    if (!r->error) set_error(r, "refused (exit status 2)");
    return;
  default:
    snprintf(r->status, sizeof r->status, "ERROR");
    if (!r->error) {
      if (WIFSIGNALED(wait_status))
        snprintf(msg, sizeof msg, "killed by signal %d", WTERMSIG(wait_status));
      else
        snprintf(msg, sizeof msg, "exit status %d", r->exit_code);
      set_error(r, msg);
    }
    return;
  }
}

void a2_sweep_row_free(a2_sweep_row *r) {
  free(r->time_ns);
  free(r->algbw_gbps);
  free(r->busbw_gbps);
  free(r->remote_read);
  free(r->remote_write);
  free(r->barrier_rounds);
  free(r->compute_us);
  free(r->comm_us);
  free(r->sequential_us);
  free(r->exposed_us);
  free(r->overlap_eff);
  free(r->tflops);
  free(r->error);
  memset(r, 0, sizeof *r);
}
