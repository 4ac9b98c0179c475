/* The table-driven flag parser, --help and the docs tables (flags.h). */
#include "common/flags.h"

#include <string.h>

#include "common/cmd_err.h"
#include "common/units.h"

#define HELP_WIDTH 80 /* --help wraps its lines here */
#define HELP_COL 21   /* a flag's help starts in this column ("  " + 19) */

const char *a2_flag_id(const a2_flag *f) {
  return f->letter ? f->letter : f->name;
}

static bool takes(const a2_flag *f, size_t cmd) {
  return !f->cmds || (f->cmds >> cmd & 1u);
}

/* The row named by text[0..len) (a name or a letter); -1 when none is. */
static int row_named(const a2_flag_table *t, const char *text, size_t len) {
  for (size_t i = 0; i < t->nrows; i++) {
    const a2_flag *f = &t->rows[i];
    if (f->kind == A2_FLAG_SECTION) continue;
    if ((strlen(f->name) == len && !strncmp(f->name, text, len)) ||
        (f->letter && strlen(f->letter) == len && !strncmp(f->letter, text, len)))
      return (int)i;
  }
  return -1;
}

/* The row an alias stands for (f itself for any other row). */
static const a2_flag *target(const a2_flag_table *t, const a2_flag *f) {
  return f->kind == A2_FLAG_ALIAS ? &t->rows[row_named(t, f->alias_of, strlen(f->alias_of))] : f;
}

/* A flag the command does not take: the error. */
static int refuse_for_cmd(const a2_flag_table *t, size_t cmd, const a2_flag *typed,
                          const a2_flag *f) {
  if (cmd != 0)
    return a2_cmd_usage_error(a2_flag_id(typed), "not for a2a3sim %s", t->cmds[cmd].name);
  char list[128] = "";
  for (size_t c = 1; c < t->ncmds; c++)
    if (takes(f, c))
      snprintf(list + strlen(list), sizeof list - strlen(list), "%sa2a3sim %s", *list ? ", " : "",
               t->cmds[c].name);
  return a2_cmd_usage_error(a2_flag_id(typed), "only for %s", list);
}

static uint64_t upper(const a2_flag *f) {
  if (f->hi) return f->hi;
  return f->kind == A2_FLAG_UINT ? 4294967295u : UINT64_MAX;
}

/* UINT, U64, SIZE, TIME: convert, check the range, store. */
static int set_number(const a2_flag *f, const char *v, void *field) {
  static const a2_unit_kind unit[] = {[A2_FLAG_UINT] = A2_UNIT_COUNT,
                                      [A2_FLAG_U64] = A2_UNIT_COUNT,
                                      [A2_FLAG_SIZE] = A2_UNIT_BYTES,
                                      [A2_FLAG_TIME] = A2_UNIT_TIME};
  uint64_t x;
  char why[160];
  bool read = !a2_parse_quantity(v, unit[f->kind], &x, why, sizeof why);
  if (!read || x < f->lo || x > upper(f)) {
    if (f->bad) return a2_cmd_usage_error(a2_flag_id(f), "%s, got '%s'", f->bad, v);
    if (f->kind == A2_FLAG_UINT || f->kind == A2_FLAG_U64)
      return a2_cmd_usage_error(a2_flag_id(f), "expected an integer in %llu..%llu, got '%s'",
                                (unsigned long long)f->lo, (unsigned long long)upper(f), v);
    if (read) {
      char lo[48], hi[48];
      a2_format_quantity(f->lo, unit[f->kind], lo, sizeof lo);
      a2_format_quantity(upper(f), unit[f->kind], hi, sizeof hi);
      if (f->hi)
        snprintf(why, sizeof why, "expected %s..%s", lo, hi);
      else
        snprintf(why, sizeof why, "expected at least %s", lo);
    }
    return a2_cmd_usage_error(a2_flag_id(f), "%s, got '%s'", why, v);
  }
  if (f->kind == A2_FLAG_UINT)
    *(unsigned *)field = (unsigned)x;
  else
    *(uint64_t *)field = x;
  return 0;
}

static int set_choice(const a2_flag *f, const char *v, int *field) {
  char list[160] = "";
  for (int i = 0; f->choices[i]; i++) {
    if (!strcmp(v, f->choices[i])) {
      *field = i;
      return 0;
    }
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", f->choices[i]);
  }
  return a2_cmd_usage_error(a2_flag_id(f), "expected one of %s, got '%s'", list, v);
}

/* Row k given at argv[at] with value v (NULL: none): note it, store it. */
static int take(const a2_flag_table *t, size_t cmd, int k, const char *v, void *opts,
                a2_flags_seen *s, int at) {
  const a2_flag *typed = &t->rows[k], *f = typed;
  if (f->kind == A2_FLAG_ALIAS) {
    f = target(t, f);
    if (takes(f, cmd) && !s->first[k])
      fprintf(stderr, "a2a3sim: warning: %s is deprecated, use %s\n", typed->name, f->name);
    if (!s->first[k]) s->first[k] = at;
    s->last[k] = at;
    k = (int)(f - t->rows);
  }
  if (!takes(f, cmd)) return refuse_for_cmd(t, cmd, typed, f);
  if (s->first[k] && f->twice) return a2_cmd_usage_error(a2_flag_id(typed), "%s", f->twice);
  if (!s->first[k]) s->first[k] = at;
  s->last[k] = at;
  char *field = (char *)opts + f->off;
  switch (f->kind) {
  case A2_FLAG_BOOL: *(bool *)field = true; return 0;
  case A2_FLAG_STRING: *(const char **)field = v; return 0;
  case A2_FLAG_CHOICE: return set_choice(f, v, (int *)field);
  case A2_FLAG_CUSTOM: return f->set(f, v, opts);
  case A2_FLAG_LIST: {
    size_t *n = (size_t *)((char *)opts + f->count_off);
    if (*n == f->hi)
      return a2_cmd_usage_error(a2_flag_id(typed), "more than %llu", (unsigned long long)f->hi);
    ((const char **)field)[(*n)++] = v;
    return 0;
  }
  default: return set_number(f, v, field);
  }
}

/* Move argv[i] to the end of argv, after the arguments moved before it. */
static void to_end(char **argv, int argc, int i) {
  char *a = argv[i];
  memmove(&argv[i], &argv[i + 1], (size_t)(argc - i - 1) * sizeof *argv);
  argv[argc - 1] = a;
}

int a2_flags_parse(const a2_flag_table *t, size_t cmd, int argc, char **argv, void *opts,
                   a2_flags_seen *s) {
  const a2_flag_cmd *c = &t->cmds[cmd];
  memset(s, 0, sizeof *s);
  s->table = t;
  if (t->nrows > A2_FLAGS_MAX)
    return a2_cmd_oom_error(c->name, "internal error: the flag table is larger than flags.h's");
  bool flags_end = false;
  int end = argc; /* argv[end..argc): the arguments, moved there in order */
  for (int i = 1; i < end;) {
    const char *a = argv[i];
    if (flags_end || a[0] != '-' || !a[1]) {
      to_end(argv, argc, i);
      end--;
      continue;
    }
    i++;
    if (!strcmp(a, "--")) {
      flags_end = true;
      continue;
    }
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      a2_flags_help(t, cmd, stdout);
      return -1;
    }
    bool is_long = a[1] == '-';
    const char *eq = is_long ? strchr(a, '=') : NULL;
    size_t len = eq ? (size_t)(eq - a) : is_long ? strlen(a) : 2;
    int k = row_named(t, a, len);
    if (k < 0 || (!is_long && a[2] && !target(t, &t->rows[k])->arg))
      return a2_cmd_usage_error(NULL, "%.*s: unknown flag (see a2a3sim %s --help)",
                                (int)(is_long ? len : strlen(a)), a, c->name);
    const char *v = eq ? eq + 1 : !is_long && a[2] ? a + 2 : NULL;
    const a2_flag *f = target(t, &t->rows[k]);
    if (!f->arg && v) return a2_cmd_usage_error(NULL, "%.*s: takes no value", (int)len, a);
    if (f->arg && !v) {
      if (i == end) return a2_cmd_usage_error(a, "missing value");
      v = argv[i++];
    }
    int rc = take(t, cmd, k, v, opts, s, i - 1);
    if (rc) return rc;
  }
  s->args = argv + end;
  s->nargs = argc - end;
  if (c->max_args >= 0 && s->nargs > c->max_args)
    return a2_cmd_usage_error(s->args[c->max_args], "unexpected argument");
  return 0;
}

bool a2_flags_given(const a2_flags_seen *s, const char *name) {
  int k = row_named(s->table, name, strlen(name));
  return k >= 0 && s->first[k];
}

static const char *pick(const a2_flags_seen *s, unsigned group, bool first) {
  int best = -1;
  for (size_t i = 0; i < s->table->nrows; i++) {
    if (!(s->table->rows[i].group & group) || !s->first[i]) continue;
    if (best < 0 || (first ? s->first[i] < s->first[best] : s->last[i] > s->last[best]))
      best = (int)i;
  }
  return best < 0 ? NULL : a2_flag_id(&s->table->rows[best]);
}

const char *a2_flags_first(const a2_flags_seen *s, unsigned group) {
  return pick(s, group, true);
}
const char *a2_flags_last(const a2_flags_seen *s, unsigned group) {
  return pick(s, group, false);
}

/* ---- --help ---- */

/* Print text from the cursor's column col, wrapping at HELP_WIDTH with
 * continuation lines indented by `indent`; `code` marks are dropped. */
static void wrap(FILE *out, const char *text, int col, int indent) {
  bool first = true;
  for (const char *p = text; *p;) {
    if (*p == ' ') {
      p++;
      continue;
    }
    int n = 0, shown = 0;
    for (; p[n] && p[n] != ' '; n++) shown += p[n] != '`';
    if (!first && col + 1 + shown > HELP_WIDTH) {
      fprintf(out, "\n%*s", indent, "");
      col = indent;
    } else if (!first) {
      fputc(' ', out);
      col++;
    }
    for (int i = 0; i < n; i++)
      if (p[i] != '`') fputc(p[i], out);
    col += shown;
    first = false;
    p += n;
  }
}

/* Paragraphs (a blank line between two; a single newline is a space),
 * each wrapped as a flag's help is, from column 0. */
static void paragraphs(FILE *out, const char *text) {
  char buf[4096];
  while (*text) {
    const char *end = strstr(text, "\n\n");
    size_t n = end ? (size_t)(end - text) : strlen(text);
    snprintf(buf, sizeof buf, "%.*s", (int)n, text);
    for (char *p = buf; *p; p++)
      if (*p == '\n') *p = ' ';
    wrap(out, buf, 0, 0);
    fputc('\n', out);
    text += n;
    if (*text) {
      fputc('\n', out);
      text += 2;
    }
  }
}

/* "-d, --devices LIST", "--size BYTES", "--json" */
static void spec(const a2_flag *f, bool markdown, char *out, size_t n) {
  const char *q = markdown ? "`" : "";
  snprintf(out, n, "%s%s%s%s%s%s%s%s", f->letter ? q : "", f->letter ? f->letter : "",
           f->letter ? q : "", f->letter ? ", " : "", q, f->name, f->arg ? " " : "",
           f->arg ? f->arg : "");
  if (markdown) snprintf(out + strlen(out), n - strlen(out), "`");
}

/* The help paragraph of a flag: its text, then for --help "(default: X;
 * repeatable)" (the docs have columns for them) or for the docs its doc. */
static void help_text(const a2_flag *f, bool markdown, char *out, size_t n) {
  if (f->kind == A2_FLAG_ALIAS)
    snprintf(out, n, "use `%s%s%s`", f->alias_of, f->arg ? " " : "", f->arg ? f->arg : "");
  else
    snprintf(out, n, "%s", f->help ? f->help : "");
  if (markdown && f->doc)
    snprintf(out + strlen(out), n - strlen(out), "%s%s", f->doc[0] == '(' ? " " : ". ", f->doc);
  if (!markdown && (f->def || f->repeat))
    snprintf(out + strlen(out), n - strlen(out), " (%s%s%s%s)", f->def ? "default: " : "",
             f->def ? f->def : "", f->def && f->repeat ? "; " : "", f->repeat ? "repeatable" : "");
}

/* Does the section that starts after row i hold a flag command cmd takes? */
static bool section_used(const a2_flag_table *t, size_t i, size_t cmd) {
  for (size_t j = i + 1; j < t->nrows && t->rows[j].kind != A2_FLAG_SECTION; j++)
    if (takes(target(t, &t->rows[j]), cmd)) return true;
  return false;
}

void a2_flags_help(const a2_flag_table *t, size_t cmd, FILE *out) {
  const a2_flag_cmd *c = &t->cmds[cmd];
  char left[128], text[4096];
  fputs(c->usage, out);
  if (c->about) {
    fputc('\n', out);
    paragraphs(out, c->about);
  }
  if (t->nrows && t->rows[0].kind != A2_FLAG_SECTION) fputc('\n', out);
  for (size_t i = 0; i < t->nrows; i++) {
    const a2_flag *f = &t->rows[i];
    if (f->kind == A2_FLAG_SECTION) {
      if (!section_used(t, i, cmd)) continue;
      snprintf(text, sizeof text, "%s%s%s%s:", f->name, f->help ? " (" : "", f->help ? f->help : "",
               f->help ? ")" : "");
      fputc('\n', out);
      wrap(out, text, 0, 0);
      fputc('\n', out);
      continue;
    }
    if (!takes(target(t, f), cmd)) continue;
    spec(f, false, left, sizeof left);
    help_text(f, false, text, sizeof text);
    int w = (int)strlen(left);
    if (w <= HELP_COL - 3)
      fprintf(out, "  %-*s", HELP_COL - 2, left);
    else
      fprintf(out, "  %s\n%*s", left, HELP_COL, "");
    wrap(out, text, HELP_COL, HELP_COL);
    fputc('\n', out);
  }
  if (c->after) {
    fputc('\n', out);
    paragraphs(out, c->after);
  }
}

/* ---- docs/cli.md ---- */

/* A table cell: '|' escaped, no newlines. */
static void cell(FILE *out, const char *s) {
  fputs(*s ? "| " : "|", out);
  for (; *s; s++) {
    if (*s == '|') fputc('\\', out);
    fputc(*s == '\n' ? ' ' : *s, out);
  }
  fputc(' ', out);
}

/* The value column: the row's type, or what its kind and range say. */
static void value_text(const a2_flag *f, char *out, size_t n) {
  static const a2_unit_kind unit[] = {
      [A2_FLAG_SIZE] = A2_UNIT_BYTES, [A2_FLAG_TIME] = A2_UNIT_TIME};
  static const char *const noun[] = {[A2_FLAG_UINT] = "integer",
                                     [A2_FLAG_U64] = "integer",
                                     [A2_FLAG_SIZE] = "size",
                                     [A2_FLAG_TIME] = "time"};
  *out = '\0';
  if (f->type) {
    snprintf(out, n, "%s", f->type);
  } else if (f->kind == A2_FLAG_CHOICE) {
    for (int i = 0; f->choices[i]; i++)
      snprintf(out + strlen(out), n - strlen(out), "%s`%s`", i ? ", " : "", f->choices[i]);
  } else if (f->kind == A2_FLAG_UINT || (f->kind == A2_FLAG_U64 && f->hi)) {
    snprintf(out, n, "integer %llu..%llu", (unsigned long long)f->lo, (unsigned long long)upper(f));
  } else if (f->kind >= A2_FLAG_U64 && f->kind <= A2_FLAG_TIME) {
    char lo[48];
    if (f->kind == A2_FLAG_U64)
      snprintf(lo, sizeof lo, "%llu", (unsigned long long)f->lo);
    else
      a2_format_quantity(f->lo, unit[f->kind], lo, sizeof lo);
    snprintf(out, n, "%s%s%s", noun[f->kind],
             f->lo == 1 ? " > 0"
             : f->lo    ? " >= "
                        : "",
             f->lo > 1 ? lo : "");
  } else if (f->kind == A2_FLAG_STRING) {
    snprintf(out, n, "text");
  }
  if (f->repeat) snprintf(out + strlen(out), n - strlen(out), "%srepeatable", *out ? ", " : "");
}

static void table_head(const a2_flag_table *t, FILE *out) {
  fprintf(out, "| flag | value | default |%s meaning |\n", t->ncmds > 1 ? " in |" : "");
  fprintf(out, "|---|---|---|%s---|\n", t->ncmds > 1 ? "---|" : "");
}

static void markdown_row(const a2_flag_table *t, const a2_flag *f, FILE *out) {
  char text[4096];
  spec(f, true, text, sizeof text);
  cell(out, text);
  value_text(f, text, sizeof text);
  cell(out, f->kind == A2_FLAG_ALIAS ? "deprecated" : text);
  cell(out, f->def ? f->def : "");
  if (t->ncmds > 1) {
    const a2_flag *g = target(t, f);
    *text = '\0';
    for (size_t c = 0; c < t->ncmds; c++)
      if (takes(g, c))
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s%s", *text ? ", " : "",
                 t->cmds[c].name);
    cell(out, text);
  }
  help_text(f, true, text, sizeof text);
  cell(out, text);
  fputs("|\n", out);
}

void a2_flags_markdown(const a2_flag_table *t, FILE *out) {
  fputs("```\n", out);
  for (size_t c = 0; c < t->ncmds; c++) fputs(t->cmds[c].usage, out);
  fputs("```\n", out);
  bool open = false; /* a table is open */
  for (size_t i = 0; i < t->nrows; i++) {
    const a2_flag *f = &t->rows[i];
    if (f->kind == A2_FLAG_SECTION) {
      fprintf(out, "\n**%s**%s%s%s\n", f->name, f->help ? " (" : "", f->help ? f->help : "",
              f->help ? ")" : "");
      open = false;
      continue;
    }
    if (!open) {
      fputc('\n', out);
      table_head(t, out);
      open = true;
    }
    markdown_row(t, f, out);
  }
}
