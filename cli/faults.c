/* The fault flags of `a2a3sim run`: --slow-rank, --slow-link, --link-down,
 * --jitter (configs/faults.h; docs/cli.md, "Faults"). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/units.h"

/* A factor: a finite decimal number > 0. */
static int parse_factor(const char *flag, const char *s, const char *what, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end || errno || !isfinite(v) || v <= 0)
    return a2_cmd_usage_error(flag, "expected %s > 0 such as 0.5, got '%s'", what, s);
  *out = v;
  return 0;
}

/* An NPU number at the start of s; *end after it. */
static int parse_npu(const char *s, const char **end, uint32_t *out) {
  if (*s < '0' || *s > '9') return -1;
  char *e;
  errno = 0;
  unsigned long v = strtoul(s, &e, 10);
  if (errno || v > 1048575) return -1;
  *out = (uint32_t)v;
  *end = e;
  return 0;
}

int a2_parse_slow_rank(const char *arg, a2_faults *f) {
  const char *p;
  uint32_t npu;
  if (f->nslow == A2_MAX_FAULTS)
    return a2_cmd_usage_error("--slow-rank", "more than %d", A2_MAX_FAULTS);
  if (parse_npu(arg, &p, &npu) || *p != '=')
    return a2_cmd_usage_error(
        "--slow-rank", "expected NPU=FACTOR such as 3=0.5 (NPU 3 at half speed), got '%s'", arg);
  double x = 0;
  if (parse_factor("--slow-rank", p + 1, "a speed factor", &x)) return A2_EXIT_USAGE;
  f->slow[f->nslow++] = (a2_slow_npu){npu, x};
  return 0;
}

int a2_parse_link_fault(const char *flag, const char *arg, a2_faults *f) {
  int down = !strcmp(flag, "--link-down");
  const char *p, *q;
  uint32_t a, b;
  if (f->nlinks == A2_MAX_FAULTS) return a2_cmd_usage_error(flag, "more than %d", A2_MAX_FAULTS);
  const char *form = down ? "A-B such as 0-1 (the link between NPU 0 and NPU 1)"
                          : "A-B=FACTOR such as 0-1=0.5 (the link between NPU 0 and NPU 1 at half "
                            "bandwidth)";
  if (parse_npu(arg, &p, &a) || *p != '-' || parse_npu(p + 1, &q, &b) ||
      (down ? *q != '\0' : *q != '='))
    return a2_cmd_usage_error(flag, "expected %s, got '%s'", form, arg);
  if (a == b) return a2_cmd_usage_error(flag, "'%s': a link joins two different NPUs", arg);
  double x = 0;
  if (!down && parse_factor(flag, q + 1, "a bandwidth factor", &x)) return A2_EXIT_USAGE;
  f->links[f->nlinks++] = (a2_link_fault){a, b, x, down ? "--link-down" : "--slow-link", arg};
  return 0;
}

int a2_parse_jitter(const char *arg, a2_faults *f) {
  char why[160];
  if (a2_parse_quantity(arg, A2_UNIT_TIME, &f->jitter_ps, why, sizeof why) ||
      f->jitter_ps > 1000000000000ull)
    return a2_cmd_usage_error("--jitter", "expected a time up to 1s such as 200ns, got '%s'", arg);
  return 0;
}

int a2_check_faults(const a2_faults *f, const a2_config *cfg) {
  for (uint32_t i = 0; i < f->nslow; i++)
    if (f->slow[i].npu >= cfg->ranks)
      return a2_cmd_usage_error("--slow-rank", "NPU %u outside 0..%u (interconnect.ranks)",
                                f->slow[i].npu, cfg->ranks - 1);
  return 0;
}

int a2_has_faults(const a2_faults *f) {
  return f->nslow || f->nlinks || f->jitter_ps;
}

void a2_print_faults(const a2_faults *f, FILE *out) {
  if (!a2_has_faults(f)) return;
  fputs("faults:", out);
  for (uint32_t i = 0; i < f->nslow; i++)
    fprintf(out, " NPU %u at %gx speed;", f->slow[i].npu, f->slow[i].factor);
  for (uint32_t i = 0; i < f->nlinks; i++) {
    if (f->links[i].factor == 0)
      fprintf(out, " link %u-%u down;", f->links[i].a, f->links[i].b);
    else
      fprintf(out, " link %u-%u at %gx bandwidth;", f->links[i].a, f->links[i].b,
              f->links[i].factor);
  }
  if (f->jitter_ps)
    fprintf(out, " jitter 0..%.3f us per remote transfer (seed %llu);", (double)f->jitter_ps / 1e6,
            (unsigned long long)f->seed);
  fputc('\n', out);
}
