/* a2a3sim calibrate: the measurements CSVs (docs/calibrate.md, "The CSV").
 * RFC 4180 fields on one line each, `#` comment lines, the exact header
 * (10 columns, or the first 9: every row then has role fit), then one
 * measurement a line. Several files make one table, each row knowing its
 * file. Every field is checked here, before anything runs, and the first
 * problem is the error, with file:line:col. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calibrate/calibrate.h"
#include "collectives/collective.h"
#include "common/units.h"

static const char *const col_names[A2_CAL_NCOLS] = {
    "row", "program", "ranks", "size", "args", "metric", "measured", "tolerance", "source", "role"};
static const char header[] = "row,program,ranks,size,args,metric,measured,tolerance,source,role";
/* The header without the role column (every row fit). */
static const char header9[] = "row,program,ranks,size,args,metric,measured,tolerance,source";

/* Flags a row may not give in `args`: the columns and calibrate set them. */
static const char *const reserved[] = {
    "--algo",       "--program", "--ranks", "--size", "--json", "--timeline", "--trace",
    "--trace-file", "--profile", "--help",  "-h",     "-o",     NULL};

char *a2_cal_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

a2_cal_group a2_cal_row_group(const a2_cal_row *row) {
  return row->held_out                      ? A2_CAL_GROUP_HELD
         : row->role == A2_CAL_ROLE_PREDICT ? A2_CAL_GROUP_PREDICT
                                            : A2_CAL_GROUP_FIT;
}

void a2_cal_row_name(const a2_cal_table *t, size_t i, char *out, size_t n) {
  const a2_cal_row *row = &t->rows[i];
  if (row->id_shared)
    snprintf(out, n, "%s:%s", row->file, row->id);
  else
    snprintf(out, n, "%s", row->id);
}

const char *a2_cal_metric_name(a2_cal_metric m) {
  return m == A2_CAL_TIME           ? "time"
         : m == A2_CAL_ALGBW        ? "algbw"
         : m == A2_CAL_BUSBW        ? "busbw"
         : m == A2_CAL_COMPUTE_TIME ? "compute_time"
                                    : "sequential_time";
}

void a2_cal_table_free(a2_cal_table *t) {
  for (size_t i = 0; i < t->nrows; i++) {
    a2_cal_row *r = &t->rows[i];
    free(r->id);
    free(r->program);
    free(r->program_path);
    free(r->config_path);
    free(r->ranks);
    free(r->size);
    for (size_t j = 0; j < r->nargs; j++) free(r->args[j]);
    free(r->args);
    free(r->measured_text);
    free(r->tolerance_text);
    free(r->source);
  }
  free(t->rows);
  for (size_t i = 0; i < t->npaths; i++) free(t->paths[i]);
  free(t->paths);
  memset(t, 0, sizeof *t);
}

/* The reader's state: the file, the line being read, the error, the
 * columns its header has (A2_CAL_NCOLS before the header). */
typedef struct {
  const char *path;
  a2_err *err;
  int line;
  size_t ncols;
} reader;

#define FAIL(rd, col, ...) \
  a2_err_set((rd)->err, A2_E_INPUT, (rd)->path, (rd)->line, col, __VA_ARGS__)

/* One line's fields (unquoted, blanks around them trimmed). */
typedef struct {
  char *text[A2_CAL_NCOLS];
  int col[A2_CAL_NCOLS];
  size_t n;
} fields;

static void fields_free(fields *f) {
  for (size_t i = 0; i < f->n && i < A2_CAL_NCOLS; i++) free(f->text[i]);
  f->n = 0;
}

static bool blank(char c) {
  return c == ' ' || c == '\t';
}

/* The header the file has (or, before it, the full one). */
static const char *header_of(const reader *rd) {
  return rd->ncols == A2_CAL_NCOLS ? header : header9;
}

/* Split line (len bytes, no newline) into fields. More than the header's
 * columns is an error here (at the first extra one). */
static a2_code split(reader *rd, const char *line, size_t len, fields *f) {
  f->n = 0;
  size_t i = 0;
  for (;;) {
    while (i < len && blank(line[i])) i++;
    int col = (int)i + 1;
    char *buf = malloc(len - (i < len ? i : len) + 1);
    if (!buf) return a2_err_set(rd->err, A2_E_NOMEM, rd->path, rd->line, col, "out of memory");
    size_t n = 0;
    if (i < len && line[i] == '"') { /* quoted: "" is a quote, ends at a lone quote */
      i++;
      for (;;) {
        if (i >= len) {
          free(buf);
          return FAIL(rd, col, "unterminated quoted field (a field ends on its line)");
        }
        if (line[i] == '"') {
          if (i + 1 < len && line[i + 1] == '"') {
            buf[n++] = '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        buf[n++] = line[i++];
      }
      while (i < len && blank(line[i])) i++;
      if (i < len && line[i] != ',') {
        free(buf);
        return FAIL(rd, (int)i + 1, "text after the closing quote of a field; expected ','");
      }
    } else {
      while (i < len && line[i] != ',') {
        if (line[i] == '"') {
          free(buf);
          return FAIL(rd, (int)i + 1,
                      "a quote inside an unquoted field: quote the whole field, with \"\" for "
                      "each quote in it");
        }
        buf[n++] = line[i++];
      }
      while (n && blank(buf[n - 1])) n--;
    }
    buf[n] = '\0';
    if (n > A2_CAL_MAX_FIELD) {
      free(buf);
      return a2_err_set(rd->err, A2_E_LIMIT, rd->path, rd->line, col,
                        "a field of %zu characters, over the %d a field may have", n,
                        A2_CAL_MAX_FIELD);
    }
    if (f->n == rd->ncols) {
      free(buf);
      return FAIL(rd, col, "more than %zu fields; expected the %zu columns %s", rd->ncols,
                  rd->ncols, header_of(rd));
    }
    f->text[f->n] = buf;
    f->col[f->n] = col;
    f->n++;
    if (i >= len) return A2_OK;
    i++; /* the comma */
  }
}

/* The header: the 10 columns, or the first 9 (a file without roles). */
static a2_code check_header(reader *rd, const fields *f, size_t len) {
  for (size_t c = 0; c < A2_CAL_NCOLS; c++) {
    if (c == f->n && c == A2_CAL_NCOLS - 1) break; /* no role column */
    if (c >= f->n)
      return FAIL(rd, (int)len + 1,
                  "the header has %zu columns; expected the %d columns %s (or the first %d: "
                  "every row then has role fit)",
                  f->n, A2_CAL_NCOLS, header, A2_CAL_NCOLS - 1);
    /* `kernel` is the deprecated name of the `program` column */
    if (strcmp(f->text[c], col_names[c]) &&
        !(c == A2_CAL_COL_PROGRAM && !strcmp(f->text[c], "kernel")))
      return FAIL(rd, f->col[c], "header column %zu is '%.60s'; expected '%s' (the header is %s)",
                  c + 1, f->text[c], col_names[c], header);
  }
  rd->ncols = f->n;
  return A2_OK;
}

static bool id_ok(const char *s) {
  if (!*s) return false;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          *s == '_' || *s == '.' || *s == '-'))
      return false;
  return true;
}

/* Lexical normalisation of a path: "." and "a/.." parts removed. */
static char *normalise(const char *path) {
  size_t n = strlen(path);
  char *out = malloc(n + 2), *work = a2_cal_strdup(path);
  const char **parts = calloc(n + 1, sizeof *parts);
  if (!out || !work || !parts) {
    free(out);
    free(work);
    free(parts);
    return NULL;
  }
  size_t np = 0;
  bool abs = path[0] == '/';
  for (char *save = NULL, *p = strtok_r(work, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
    if (!strcmp(p, ".")) continue;
    if (!strcmp(p, "..") && np && strcmp(parts[np - 1], "..")) {
      np--;
      continue;
    }
    if (!strcmp(p, "..") && abs) continue; /* /.. is / */
    parts[np++] = p;
  }
  size_t at = 0;
  if (abs) out[at++] = '/';
  for (size_t i = 0; i < np; i++) {
    size_t l = strlen(parts[i]);
    if (i) out[at++] = '/';
    memcpy(out + at, parts[i], l);
    at += l;
  }
  if (!at) out[at++] = '.';
  out[at] = '\0';
  free(work);
  free(parts);
  return out;
}

/* The program file a `program` field names, against the CSV's folder. */
static char *resolve(const char *csv, const char *program) {
  if (program[0] == '/') return normalise(program);
  const char *slash = strrchr(csv, '/');
  size_t dn = slash ? (size_t)(slash - csv) : 0;
  size_t n = dn + strlen(program) + 2;
  char *joined = malloc(n);
  if (!joined) return NULL;
  if (slash)
    snprintf(joined, n, "%.*s/%s", (int)dn, csv, program);
  else
    snprintf(joined, n, "%s", program);
  char *out = normalise(joined);
  free(joined);
  return out;
}

static a2_code check_program(reader *rd, a2_cal_row *r, const char *csv) {
  int col = r->col[A2_CAL_COL_PROGRAM];
  if (!r->program[0])
    return FAIL(rd, col, "program: empty; expected a built-in name or a program file");
  bool file = strchr(r->program, '/') || strstr(r->program, ".a2t");
  if (!file) {
    if (a2_collective_find(r->program)) return A2_OK;
    return FAIL(rd, col,
                "program: unknown built-in '%.60s' (a2a3sim list names them); a program file is a "
                "path relative to the CSV's folder, e.g. ../../traces/fidelity/tget.a2t",
                r->program);
  }
  if (!(r->program_path = resolve(csv, r->program)))
    return a2_err_set(rd->err, A2_E_NOMEM, rd->path, rd->line, col, "out of memory");
  if (access(r->program_path, R_OK))
    return FAIL(rd, col,
                "program: cannot read the program file '%.60s' (%.120s, relative to the CSV's "
                "folder): %s",
                r->program, r->program_path, strerror(errno));
  return A2_OK;
}

static bool has_flag(const a2_cal_row *r, const char *a, const char *b) {
  for (size_t i = 0; i < r->nargs; i++) {
    const char *s = r->args[i];
    size_t la = strlen(a), lb = b ? strlen(b) : 0;
    if (!strcmp(s, a) || (b && !strcmp(s, b)) || (!strncmp(s, a, la) && s[la] == '=') ||
        (b && !strncmp(s, b, lb) && s[lb] == '='))
      return true;
  }
  return false;
}

/* A row's `--config FILE` (or --config=FILE): the file, relative to the
 * CSV's folder as a trace file is, becomes the row's config. */
static a2_code row_config(reader *rd, a2_cal_row *r, const char *file, int col) {
  if (r->config_path) return FAIL(rd, col, "args: --config given twice");
  if (!file || !*file) return FAIL(rd, col, "args: --config needs a file (--config FILE)");
  if (!(r->config_path = resolve(rd->path, file)))
    return a2_err_set(rd->err, A2_E_NOMEM, rd->path, rd->line, col, "out of memory");
  if (access(r->config_path, R_OK))
    return FAIL(rd, col,
                "args: --config: cannot read '%.60s' (%.120s, relative to the CSV's folder): %s",
                file, r->config_path, strerror(errno));
  return A2_OK;
}

/* args: split at blanks; no flag the columns or calibrate give; a
 * `--config FILE` is the row's config (row_config), not a run flag. */
static a2_code check_args(reader *rd, a2_cal_row *r, const char *text) {
  int col = r->col[A2_CAL_COL_ARGS];
  size_t n = 0, len = strlen(text);
  r->args = calloc(len / 2 + 2, sizeof *r->args);
  if (!r->args) return a2_err_set(rd->err, A2_E_NOMEM, rd->path, rd->line, col, "out of memory");
  for (size_t i = 0; i < len;) {
    while (i < len && blank(text[i])) i++;
    if (i >= len) break;
    size_t start = i;
    while (i < len && !blank(text[i])) i++;
    char *arg = malloc(i - start + 1);
    if (!arg) return a2_err_set(rd->err, A2_E_NOMEM, rd->path, rd->line, col, "out of memory");
    memcpy(arg, text + start, i - start);
    arg[i - start] = '\0';
    if (!strcmp(arg, "--config") || !strncmp(arg, "--config=", 9)) {
      const char *file = arg[8] == '=' ? arg + 9 : NULL;
      char *next = NULL;
      if (!file) { /* the next blank-separated word */
        while (i < len && blank(text[i])) i++;
        size_t fs = i;
        while (i < len && !blank(text[i])) i++;
        next = malloc(i - fs + 1);
        if (!next) {
          free(arg);
          return a2_err_set(rd->err, A2_E_NOMEM, rd->path, rd->line, col, "out of memory");
        }
        memcpy(next, text + fs, i - fs);
        next[i - fs] = '\0';
        file = next;
      }
      a2_code rc = row_config(rd, r, file, col + (int)start);
      free(next);
      free(arg);
      if (rc) return rc;
      continue;
    }
    r->args[n++] = arg;
    r->nargs = n;
    for (const char *const *f = reserved; *f; f++) {
      size_t lf = strlen(*f);
      if (!strcmp(arg, *f) || (!strncmp(arg, *f, lf) && arg[lf] == '='))
        return FAIL(rd, col + (int)start,
                    "args: %s is not a row's flag (the program, ranks and size columns give "
                    "--algo/--program, --ranks and --size; calibrate gives --json)",
                    *f);
    }
  }
  return A2_OK;
}

/* A positive quantity with an explicit unit, of the metric's kind. */
static a2_code check_measured(reader *rd, a2_cal_row *r) {
  int col = r->col[A2_CAL_COL_MEASURED];
  const char *s = r->measured_text;
  a2_unit_kind kind = a2_cal_metric_is_time(r->metric) ? A2_UNIT_TIME : A2_UNIT_BANDWIDTH;
  const char *example =
      a2_cal_metric_is_time(r->metric) ? "a time such as 0.726us" : "a bandwidth such as 8.903GB/s";
  const char *u = s;
  while (*u && ((*u >= '0' && *u <= '9') || *u == '.' || *u == '_')) u++;
  const char *unit = u;
  while (blank(*unit)) unit++;
  if (!*s || u == s) return FAIL(rd, col, "measured: '%.40s' is not %s", s, example);
  if (!*unit)
    return FAIL(rd, col, "measured: '%.40s' has no unit; expected %s (metric %s)", s, example,
                a2_cal_metric_name(r->metric));
  char why[160], one[40];
  uint64_t v, scale;
  snprintf(one, sizeof one, "1%s", unit);
  if (strlen(unit) >= sizeof r->unit || a2_parse_quantity(one, kind, &scale, why, sizeof why) ||
      !scale)
    return FAIL(rd, col + (int)(unit - s),
                "measured: unknown unit '%.20s' for metric %s; expected %s", unit,
                a2_cal_metric_name(r->metric), example);
  if (a2_parse_quantity(s, kind, &v, why, sizeof why))
    return FAIL(rd, col, "measured: '%.40s': %s", s, why);
  if (!v) return FAIL(rd, col, "measured: '%.40s' is zero; expected a figure above 0", s);
  r->measured = (double)v;
  snprintf(r->unit, sizeof r->unit, "%s", unit);
  r->unit_scale = (double)scale;
  return A2_OK;
}

/* "15%" or "2.5%": above 0, at most 100. */
static a2_code check_tolerance(reader *rd, a2_cal_row *r) {
  int col = r->col[A2_CAL_COL_TOLERANCE];
  const char *s = r->tolerance_text;
  double v = 0, scale = 1;
  bool digits = false, dot = false;
  const char *p = s;
  for (; (*p >= '0' && *p <= '9') || (*p == '.' && !dot); p++) {
    if (*p == '.') {
      dot = true;
      continue;
    }
    digits = true;
    if (dot) {
      scale /= 10;
      v += (*p - '0') * scale;
    } else {
      v = v * 10 + (*p - '0');
    }
  }
  while (blank(*p)) p++;
  if (!digits || strcmp(p, "%"))
    return FAIL(rd, col, "tolerance: '%.40s' is not a percentage such as 15%%", s);
  if (v <= 0 || v > 100) return FAIL(rd, col, "tolerance: '%.40s' is outside (0%%, 100%%]", s);
  r->tolerance = v / 100;
  return A2_OK;
}

/* Fill and check row r from the fields of one line. */
static a2_code make_row(reader *rd, fields *f, a2_cal_row *r, const a2_cal_table *t, size_t len) {
  if (f->n != rd->ncols)
    return FAIL(rd, (int)len + 1, "%zu field%s; expected the %zu columns %s", f->n,
                f->n == 1 ? "" : "s", rd->ncols, header_of(rd));
  r->line = rd->line;
  memcpy(r->col, f->col, f->n * sizeof r->col[0]);
  char **x = f->text;
  r->id = x[A2_CAL_COL_ROW];
  r->program = x[A2_CAL_COL_PROGRAM];
  r->measured_text = x[A2_CAL_COL_MEASURED];
  r->tolerance_text = x[A2_CAL_COL_TOLERANCE];
  r->source = x[A2_CAL_COL_SOURCE];
  if (x[A2_CAL_COL_RANKS][0]) r->ranks = x[A2_CAL_COL_RANKS];
  if (x[A2_CAL_COL_SIZE][0]) r->size = x[A2_CAL_COL_SIZE];
  const char *args = x[A2_CAL_COL_ARGS], *metric = x[A2_CAL_COL_METRIC];
  /* The row owns the kept strings now; the others are freed below. */
  x[A2_CAL_COL_ROW] = x[A2_CAL_COL_PROGRAM] = x[A2_CAL_COL_MEASURED] = NULL;
  x[A2_CAL_COL_TOLERANCE] = x[A2_CAL_COL_SOURCE] = NULL;
  if (r->ranks) x[A2_CAL_COL_RANKS] = NULL;
  if (r->size) x[A2_CAL_COL_SIZE] = NULL;
  a2_code rc;

  if (!id_ok(r->id))
    return FAIL(rd, r->col[A2_CAL_COL_ROW], "row: '%.60s' is not an id of letters, digits and _.-",
                r->id);
  for (size_t i = 0; i + 1 < t->nrows; i++) /* the rows of this file before this one */
    if (t->rows[i].file == r->file && !strcmp(t->rows[i].id, r->id))
      return FAIL(rd, r->col[A2_CAL_COL_ROW], "row: duplicate id '%.60s' (first on line %d)", r->id,
                  t->rows[i].line);
  if ((rc = check_program(rd, r, rd->path))) return rc;
  if ((rc = check_args(rd, r, args))) return rc;
  bool devices = has_flag(r, "-d", "--devices");
  if (r->ranks) {
    uint64_t p;
    char why[160];
    if (a2_parse_quantity(r->ranks, A2_UNIT_COUNT, &p, why, sizeof why) || p < 1 || p > 1048576)
      return FAIL(rd, r->col[A2_CAL_COL_RANKS], "ranks: '%.40s' is not a rank count of 1..1048576",
                  r->ranks);
    if (devices)
      return FAIL(rd, r->col[A2_CAL_COL_RANKS],
                  "ranks: give either ranks or -d LIST in args, not both");
  } else if (!devices) {
    return FAIL(rd, r->col[A2_CAL_COL_RANKS],
                "ranks: empty, and args has no -d LIST; one of them says where the row runs");
  }
  if (r->size) {
    uint64_t b;
    char why[160];
    if (a2_parse_quantity(r->size, A2_UNIT_BYTES, &b, why, sizeof why))
      return FAIL(rd, r->col[A2_CAL_COL_SIZE], "size: '%.40s': %s", r->size, why);
    if (!b) return FAIL(rd, r->col[A2_CAL_COL_SIZE], "size: '%.40s' is zero", r->size);
    if (r->program_path && has_flag(r, "--param", NULL)) {
      for (size_t i = 0; i + 1 < r->nargs; i++)
        if (!strcmp(r->args[i], "--param") && !strncmp(r->args[i + 1], "size=", 5))
          return FAIL(rd, r->col[A2_CAL_COL_SIZE],
                      "size: the size column and args' --param size= both give the size");
    }
  }
  if (!strcmp(metric, "time"))
    r->metric = A2_CAL_TIME;
  else if (!strcmp(metric, "algbw"))
    r->metric = A2_CAL_ALGBW;
  else if (!strcmp(metric, "busbw"))
    r->metric = A2_CAL_BUSBW;
  else if (!strcmp(metric, "compute_time"))
    r->metric = A2_CAL_COMPUTE_TIME;
  else if (!strcmp(metric, "sequential_time"))
    r->metric = A2_CAL_SEQUENTIAL_TIME;
  else
    return FAIL(rd, r->col[A2_CAL_COL_METRIC],
                "metric: unknown metric '%.40s'; expected time, "
                "algbw, busbw, compute_time or sequential_time",
                metric);
  if ((rc = check_measured(rd, r))) return rc;
  if ((rc = check_tolerance(rd, r))) return rc;
  if (!r->source[0]) return FAIL(rd, r->col[A2_CAL_COL_SOURCE], "source: empty; name the source");
  r->role = A2_CAL_ROLE_FIT;
  if (rd->ncols == A2_CAL_NCOLS) {
    const char *role = x[A2_CAL_COL_ROLE];
    if (!strcmp(role, "predict"))
      r->role = A2_CAL_ROLE_PREDICT;
    else if (strcmp(role, "fit"))
      return FAIL(rd, r->col[A2_CAL_COL_ROLE],
                  "role: '%.40s' is not a role; expected fit (a fit may use the row) or predict "
                  "(compared only, never fitted to)",
                  role);
  }
  return A2_OK;
}

static a2_code read_file(const char *path, char **data, size_t *len, a2_err *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return a2_err_set(err, A2_E_IO, path, 0, 0, "cannot read: %s", strerror(errno));
  size_t cap = 65536, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (n > A2_CAL_MAX_BYTES) {
      free(buf);
      fclose(f);
      return a2_err_set(err, A2_E_LIMIT, path, 0, 0, "larger than %d MiB", A2_CAL_MAX_BYTES >> 20);
    }
    if (got == 0) break;
    if (n == cap) {
      char *p = realloc(buf, cap *= 2);
      if (!p) free(buf);
      buf = p;
    }
  }
  bool bad = ferror(f);
  fclose(f);
  if (!buf) return a2_err_set(err, A2_E_NOMEM, path, 0, 0, "out of memory");
  if (bad) {
    free(buf);
    return a2_err_set(err, A2_E_IO, path, 0, 0, "cannot read");
  }
  *data = buf;
  *len = n;
  return A2_OK;
}

/* Read one file's rows into t (after the rows of the files before it). */
static a2_code read_one(const char *path, a2_cal_table *t, size_t *cap, a2_err *err) {
  char *data = NULL;
  size_t len = 0;
  a2_code rc = read_file(path, &data, &len, err);
  if (rc) return rc;
  reader rd = {path, err, 0, A2_CAL_NCOLS};
  bool have_header = false;
  size_t first = t->nrows;
  for (size_t at = 0; at < len && !rc;) {
    const char *line = data + at;
    const char *nl = memchr(line, '\n', len - at);
    size_t n = nl ? (size_t)(nl - line) : len - at;
    at += n + 1;
    rd.line++;
    if (n && line[n - 1] == '\r') n--;
    if (memchr(line, '\0', n)) {
      rc = FAIL(&rd, 0, "a NUL byte: not a text file");
      break;
    }
    size_t lead = 0;
    while (lead < n && blank(line[lead])) lead++;
    if (lead == n || line[lead] == '#') continue; /* blank or comment */
    fields f = {0};
    if ((rc = split(&rd, line, n, &f))) {
      fields_free(&f);
      break;
    }
    if (!have_header) {
      rc = check_header(&rd, &f, n);
      have_header = true;
      fields_free(&f);
      continue;
    }
    if (t->nrows == A2_CAL_MAX_ROWS) {
      fields_free(&f);
      rc = FAIL(&rd, 0, "more than %d rows", A2_CAL_MAX_ROWS);
      break;
    }
    if (t->nrows == *cap) {
      size_t nc = *cap ? 2 * *cap : 16;
      a2_cal_row *p = realloc(t->rows, nc * sizeof *p);
      if (!p) {
        fields_free(&f);
        rc = a2_err_set(err, A2_E_NOMEM, path, rd.line, 0, "out of memory");
        break;
      }
      t->rows = p;
      *cap = nc;
    }
    a2_cal_row *r = &t->rows[t->nrows];
    memset(r, 0, sizeof *r);
    r->file = path;
    t->nrows++; /* kept even when it fails, so that a2_cal_table_free frees it */
    rc = make_row(&rd, &f, r, t, n);
    fields_free(&f);
  }
  free(data);
  if (!rc && !have_header)
    rc = a2_err_set(err, A2_E_INPUT, path, 0, 0,
                    "no header: expected the first line that is not "
                    "a comment to be %s",
                    header);
  else if (!rc && t->nrows == first)
    rc = a2_err_set(err, A2_E_INPUT, path, rd.line, 0, "no rows after the header");
  return rc;
}

a2_code a2_cal_read(const char *const *paths, size_t npaths, a2_cal_table *t, a2_err *err) {
  memset(t, 0, sizeof *t);
  if (!(t->paths = calloc(npaths ? npaths : 1, sizeof *t->paths)))
    return a2_err_set(err, A2_E_NOMEM, NULL, 0, 0, "out of memory");
  size_t cap = 0;
  a2_code rc = A2_OK;
  for (size_t i = 0; i < npaths && !rc; i++) {
    for (size_t j = 0; j < i; j++)
      if (!strcmp(paths[i], paths[j])) {
        rc = a2_err_set(err, A2_E_INPUT, paths[i], 0, 0,
                        "given twice (a row is known by its file and id)");
        break;
      }
    if (rc) break;
    if (!(t->paths[i] = a2_cal_strdup(paths[i]))) {
      rc = a2_err_set(err, A2_E_NOMEM, paths[i], 0, 0, "out of memory");
      break;
    }
    t->npaths = i + 1;
    rc = read_one(t->paths[i], t, &cap, err);
  }
  if (rc) {
    a2_cal_table_free(t);
    return rc;
  }
  for (size_t i = 0; i < t->nrows; i++) /* ids are unique within a file: any match is another's */
    for (size_t j = i + 1; j < t->nrows; j++)
      if (!strcmp(t->rows[i].id, t->rows[j].id)) t->rows[i].id_shared = t->rows[j].id_shared = true;
  return A2_OK;
}
