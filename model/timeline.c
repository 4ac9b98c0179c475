/* Streaming Chrome Trace Event writer (see timeline.h). */
#include "model/timeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_gen.h>

#include "common/outfile.h"

struct a2_timeline {
  FILE *f;         /* the stream of out */
  a2_outfile *out; /* written under a temporary name, renamed when complete */
  yajl_gen g;
  uint64_t events;
  int write_error;
};

/* Move what the generator holds to the file; keeps its buffer small. */
static void drain(a2_timeline *tl) {
  const unsigned char *buf;
  size_t len;
  yajl_gen_get_buf(tl->g, &buf, &len);
  if (len && fwrite(buf, 1, len, tl->f) != len) tl->write_error = errno ? errno : EIO;
  yajl_gen_clear(tl->g);
}

static void str(yajl_gen g, const char *s) {
  yajl_gen_string(g, (const unsigned char *)s, strlen(s));
}

static void num_u(yajl_gen g, uint64_t v) {
  char b[32];
  int n = snprintf(b, sizeof b, "%llu", (unsigned long long)v);
  yajl_gen_number(g, b, (size_t)n);
}

/* ps -> us with 6 decimals: exact, and byte-stable across machines. */
static void num_us(yajl_gen g, uint64_t ps) {
  char b[40];
  int n = snprintf(b, sizeof b, "%llu.%06llu", (unsigned long long)(ps / 1000000),
                   (unsigned long long)(ps % 1000000));
  yajl_gen_number(g, b, (size_t)n);
}

static void kv_str(yajl_gen g, const char *k, const char *v) {
  str(g, k);
  str(g, v);
}

static void begin(a2_timeline *tl, const char *ph, uint32_t pid, uint32_t tid) {
  yajl_gen g = tl->g;
  yajl_gen_map_open(g);
  kv_str(g, "ph", ph);
  str(g, "pid");
  num_u(g, pid);
  str(g, "tid");
  num_u(g, tid);
}

static void end(a2_timeline *tl) {
  yajl_gen_map_close(tl->g);
  tl->events++;
  if ((tl->events & 255) == 0) drain(tl);
}

a2_code a2_tl_open(const char *path, a2_timeline **out, a2_err *err) {
  a2_timeline *tl = calloc(1, sizeof *tl);
  if (!tl) return a2_err_set(err, A2_E_NOMEM, NULL, 0, 0, "out of memory for the timeline");
  a2_code rc = a2_outfile_open(path, "the timeline", &tl->out, err);
  if (rc) {
    free(tl);
    return rc;
  }
  tl->f = a2_outfile_stream(tl->out);
  tl->g = yajl_gen_alloc(NULL);
  if (!tl->g) {
    a2_outfile_discard(tl->out);
    free(tl);
    return a2_err_set(err, A2_E_NOMEM, NULL, 0, 0, "out of memory for the timeline");
  }
  yajl_gen_map_open(tl->g);
  kv_str(tl->g, "displayTimeUnit", "ns");
  str(tl->g, "traceEvents");
  yajl_gen_array_open(tl->g);
  *out = tl;
  return A2_OK;
}

a2_code a2_tl_close(a2_timeline *tl, a2_err *err) {
  yajl_gen_array_close(tl->g);
  yajl_gen_map_close(tl->g);
  drain(tl);
  if (fputc('\n', tl->f) == EOF && !tl->write_error) tl->write_error = EIO;
  if (tl->write_error) a2_outfile_fail(tl->out, tl->write_error);
  a2_code rc = a2_outfile_commit(tl->out, err); /* reports the first error once */
  yajl_gen_free(tl->g);
  free(tl);
  return rc;
}

void a2_tl_discard(a2_timeline *tl) {
  a2_outfile_discard(tl->out);
  yajl_gen_free(tl->g);
  free(tl);
}

static void meta(a2_timeline *tl, const char *what, uint32_t pid, uint32_t tid, const char *name,
                 const char *sort_what, uint32_t sort_index) {
  begin(tl, "M", pid, tid);
  kv_str(tl->g, "name", what);
  str(tl->g, "args");
  yajl_gen_map_open(tl->g);
  kv_str(tl->g, "name", name);
  yajl_gen_map_close(tl->g);
  end(tl);
  begin(tl, "M", pid, tid);
  kv_str(tl->g, "name", sort_what);
  str(tl->g, "args");
  yajl_gen_map_open(tl->g);
  str(tl->g, "sort_index");
  num_u(tl->g, sort_index);
  yajl_gen_map_close(tl->g);
  end(tl);
}

void a2_tl_process(a2_timeline *tl, uint32_t pid, const char *name, uint32_t sort_index) {
  meta(tl, "process_name", pid, 0, name, "process_sort_index", sort_index);
}

void a2_tl_thread(a2_timeline *tl, uint32_t pid, uint32_t tid, const char *name,
                  uint32_t sort_index) {
  meta(tl, "thread_name", pid, tid, name, "thread_sort_index", sort_index);
}

void a2_tl_slice(a2_timeline *tl, uint32_t pid, uint32_t tid, const char *name, const char *cat,
                 uint64_t ts_ps, uint64_t dur_ps, const a2_tl_arg *args, int nargs) {
  yajl_gen g = tl->g;
  begin(tl, "X", pid, tid);
  kv_str(g, "name", name);
  kv_str(g, "cat", cat);
  str(g, "ts");
  num_us(g, ts_ps);
  str(g, "dur");
  num_us(g, dur_ps);
  str(g, "args");
  yajl_gen_map_open(g);
  str(g, "ts_ps");
  num_u(g, ts_ps);
  str(g, "dur_ps");
  num_u(g, dur_ps);
  for (int i = 0; i < nargs; i++) {
    str(g, args[i].key);
    if (args[i].s) {
      str(g, args[i].s);
    } else {
      char b[32];
      int n = snprintf(b, sizeof b, "%lld", (long long)args[i].i);
      yajl_gen_number(g, b, (size_t)n);
    }
  }
  yajl_gen_map_close(g);
  end(tl);
}

static void flow_end(a2_timeline *tl, const char *ph, uint64_t id, const char *name, uint32_t pid,
                     uint32_t tid, uint64_t ts) {
  begin(tl, ph, pid, tid);
  kv_str(tl->g, "name", name);
  kv_str(tl->g, "cat", "sync");
  str(tl->g, "id");
  num_u(tl->g, id);
  str(tl->g, "ts");
  num_us(tl->g, ts);
  if (ph[0] == 'f') kv_str(tl->g, "bp", "e"); /* bind to the enclosing slice */
  end(tl);
}

void a2_tl_flow(a2_timeline *tl, uint64_t id, const char *name, uint32_t pid_a, uint32_t tid_a,
                uint64_t ts_a, uint32_t pid_b, uint32_t tid_b, uint64_t ts_b) {
  flow_end(tl, "s", id, name, pid_a, tid_a, ts_a);
  flow_end(tl, "f", id, name, pid_b, tid_b, ts_b);
}

void a2_tl_counter(a2_timeline *tl, uint32_t pid, const char *name, uint64_t ts_ps, double value) {
  yajl_gen g = tl->g;
  begin(tl, "C", pid, 0);
  kv_str(g, "name", name);
  str(g, "ts");
  num_us(g, ts_ps);
  str(g, "args");
  yajl_gen_map_open(g);
  char b[32];
  int n = snprintf(b, sizeof b, "%.4f", value);
  str(g, "value");
  yajl_gen_number(g, b, (size_t)n);
  yajl_gen_map_close(g);
  end(tl);
}

uint64_t a2_tl_events(const a2_timeline *tl) {
  return tl->events;
}
