/* a2a3sim calibrate: the fit. The objective is the sum over the rows the
 * fit uses (role fit, not held out by --holdout) of e_i^2, e_i =
 * ln(simulated_i / measured_i), each value of it a point of child runs of
 * those rows (runs.c); the other rows run at the start and at the fit only. The search works on x =
 * ln(value) of each key, inside the key's range, in two phases:
 *   1. one coordinate sweep: for each key in turn, golden-section steps over
 *      its whole range (the others held) to 1 % - a global start that does
 *      not depend on the start value being close;
 *   2. Levenberg-Marquardt steps: the Jacobian de_i/dx_k by forward
 *      differences (1 % steps, every key's point run at once), the damped
 *      Gauss-Newton step (J'J + lambda diag(J'J)) dx = -J'e clamped into the
 *      ranges, lambda divided by 4 when the step lowers the residual and
 *      multiplied by 8 (up to 8 times) when it does not;
 * until a step moves no key by more than 0.02 %, no damped step lowers the
 * residual, the residual is 0, or the --max-evals budget of points is
 * spent. Keys that move the rows alike (J'J singular) are no problem for
 * the damped step: it moves along the combination the rows fix. Values are
 * rounded to 5 significant digits (counts to integers): a rounded point
 * that has run costs nothing. Ties keep the earlier point. Before the
 * search, each key is perturbed by x1.1 and /1.1: a key whose perturbation
 * changes no row is refused; after it, the same gives the sensitivities
 * the notes use. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/calibrate.h"

enum { MAX_STEPS = 100, MAX_TRIES = 8 };
static const double GOLD = 0.6180339887498949; /* (sqrt(5) - 1) / 2 */
static const double TOL = 0.01;                /* phase 1's resolution in ln(value) */
static const double FD = 0.00995033085;        /* ln(1.01): the Jacobian's step */
static const double CONVERGED = 2e-4;          /* a step moving less than this: done */
static const double PERTURB = 1.1;             /* the sensitivities' factor */

typedef struct {
  a2_cal_runner *r;
  const a2_cal_opts *o;
  size_t nk;
  uint64_t cur[A2_CAL_MAX_KEYS]; /* the incumbent */
  double fcur;
  size_t icur;
  size_t evals; /* fresh points of the search */
  bool out_of_budget;
  unsigned step;     /* 0: not in phase 2 */
  const char *phase; /* what the progress line says is happening */
  int rc;            /* an error or a signal stopped the search */
} search;

/* ---- points ---- */

static void progress(const search *s, size_t idx) {
  const a2_cal_point *p = &s->r->points[idx];
  fprintf(stderr, "calibrate: point %zu", idx + 1);
  if (s->step)
    fprintf(stderr, " (step %u, %s)", s->step, s->phase);
  else
    fprintf(stderr, " (%s)", s->phase);
  fputc(':', stderr);
  for (size_t k = 0; k < s->nk; k++) {
    char v[64];
    a2_cal_format_value(&s->o->keys[k], p->values[k], v, sizeof v);
    fprintf(stderr, " %s=%s", s->o->keys[k].path, v);
  }
  if (isfinite(p->residual))
    fprintf(stderr, "  residual %.6g\n", p->residual);
  else
    fprintf(stderr, "  residual inf (a row's run failed)\n");
  fflush(stderr);
}

/* Run n points (rows of A2_CAL_MAX_KEYS values); f[i], idx[i] for each.
 * In the search (counted), a point past the budget is not run: f = inf. */
static void eval(search *s, size_t n, const uint64_t *vals, double *f, size_t *idx, bool counted) {
  uint64_t todo[2 * A2_CAL_MAX_KEYS * A2_CAL_MAX_KEYS];
  size_t map[2 * A2_CAL_MAX_KEYS], m = 0;
  for (size_t i = 0; i < n; i++) {
    f[i] = INFINITY;
    idx[i] = SIZE_MAX;
    if (s->rc) continue;
    size_t at = a2_cal_find(s->r, vals + i * A2_CAL_MAX_KEYS);
    if (at != SIZE_MAX) {
      idx[i] = at;
      f[i] = s->r->points[at].residual;
      continue;
    }
    if (counted && s->evals + m >= s->o->max_evals) {
      s->out_of_budget = true;
      continue;
    }
    memcpy(todo + m * A2_CAL_MAX_KEYS, vals + i * A2_CAL_MAX_KEYS,
           sizeof todo[0] * A2_CAL_MAX_KEYS);
    map[m++] = i;
  }
  if (!m || s->rc) return;
  size_t got[2 * A2_CAL_MAX_KEYS], before = s->r->npoints, fresh = 0;
  if ((s->rc = a2_cal_run(s->r, m, todo, false, got, &fresh))) return;
  if (counted) s->evals += fresh;
  for (size_t j = 0; j < m; j++) {
    idx[map[j]] = got[j];
    f[map[j]] = s->r->points[got[j]].residual;
  }
  for (size_t p = before; p < s->r->npoints; p++) progress(s, p);
}

/* v rounded to 5 significant digits (counts: to an integer) and to the
 * key's step (32 B windows), inside lo..hi. */
static uint64_t round5(const a2_cal_key *k, double v, uint64_t lo, uint64_t hi) {
  if (k->info.kind != A2_UNIT_COUNT && v >= 1e5) {
    double unit = pow(10, floor(log10(v)) - 4);
    v = round(v / unit) * unit;
  }
  uint64_t step = k->info.step > 1 ? k->info.step : 1, u;
  if (step > 1) { /* whole steps inside lo..hi (a range too narrow for one: lo) */
    uint64_t l = (lo + step - 1) / step * step, h = hi / step * step;
    if (l > h) return lo;
    lo = l;
    hi = h;
    v = round(v / (double)step) * (double)step;
  }
  if (!(v >= (double)lo)) return lo;
  if (v >= (double)hi) return hi;
  u = (uint64_t)llround(v);
  return u < lo ? lo : u > hi ? hi : u;
}

/* The value of key k at x = ln(value), inside its search range. */
static uint64_t quantize(const a2_cal_key *k, double x) {
  return round5(k, exp(x), k->lo, k->hi);
}

/* ---- line searches along x(t) = x0 + t d ---- */

typedef struct {
  double x0[A2_CAL_MAX_KEYS], d[A2_CAL_MAX_KEYS];
  double best_t, best_f;
  size_t best_idx;
} line;

static void point_at(const search *s, const line *l, double t, uint64_t *v) {
  memcpy(v, s->cur, sizeof s->cur);
  for (size_t k = 0; k < s->nk; k++)
    if (l->d[k] != 0) v[k] = quantize(&s->o->keys[k], l->x0[k] + t * l->d[k]);
}

/* F at t1 (and t2 when two): run together. */
static void at(search *s, line *l, size_t n, const double *t, double *f) {
  uint64_t v[2 * A2_CAL_MAX_KEYS];
  size_t idx[2];
  for (size_t i = 0; i < n; i++) point_at(s, l, t[i], v + i * A2_CAL_MAX_KEYS);
  eval(s, n, v, f, idx, true);
  for (size_t i = 0; i < n; i++)
    if (f[i] < l->best_f) {
      l->best_f = f[i];
      l->best_t = t[i];
      l->best_idx = idx[i];
    }
}

/* Golden-section steps on [a, b] until it is narrower than tol. */
static void golden(search *s, line *l, double a, double b, double tol) {
  double t[2] = {b - GOLD * (b - a), a + GOLD * (b - a)}, f[2];
  at(s, l, 2, t, f);
  double c = t[0], d = t[1], fc = f[0], fd = f[1];
  while (b - a > tol && !s->out_of_budget && !s->rc) {
    if (fc < fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - GOLD * (b - a);
      at(s, l, 1, &c, &fc);
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + GOLD * (b - a);
      at(s, l, 1, &d, &fd);
    }
  }
}

/* Move the incumbent to the line's best point, if it is better. */
static void accept(search *s, const line *l) {
  if (!(l->best_f < s->fcur) || l->best_idx == SIZE_MAX) return;
  memcpy(s->cur, s->r->points[l->best_idx].values, sizeof s->cur);
  s->fcur = l->best_f;
  s->icur = l->best_idx;
}

static void line_init(const search *s, line *l) {
  memset(l, 0, sizeof *l);
  for (size_t k = 0; k < s->nk; k++) l->x0[k] = log((double)s->cur[k]);
  l->best_f = s->fcur;
  l->best_t = 0;
  l->best_idx = s->icur;
}

/* The t range that keeps every moving key inside its range. */
static void t_range(const search *s, const line *l, double *tlo, double *thi) {
  *tlo = -INFINITY;
  *thi = INFINITY;
  for (size_t k = 0; k < s->nk; k++) {
    if (l->d[k] == 0) continue;
    double lo = (log((double)s->o->keys[k].lo) - l->x0[k]) / l->d[k];
    double hi = (log((double)s->o->keys[k].hi) - l->x0[k]) / l->d[k];
    if (lo > hi) {
      double x = lo;
      lo = hi;
      hi = x;
    }
    *tlo = fmax(*tlo, lo);
    *thi = fmin(*thi, hi);
  }
  if (*tlo > 0) *tlo = 0;
  if (*thi < 0) *thi = 0;
}

/* Phase 1: each key once over its whole range. */
static void sweep(search *s) {
  char phase[200];
  for (size_t k = 0; k < s->nk && !s->out_of_budget && !s->rc; k++) {
    line l;
    line_init(s, &l);
    l.d[k] = 1;
    snprintf(phase, sizeof phase, "sweep, %s", s->o->keys[k].path);
    s->phase = phase;
    double tlo, thi;
    t_range(s, &l, &tlo, &thi);
    golden(s, &l, tlo, thi, TOL);
    accept(s, &l);
  }
}

/* Solve m x = b (n x n, row-major, overwritten) by Gaussian elimination
 * with partial pivoting; false when singular. */
static bool solve(double *m, double *b, double *x, size_t n) {
  for (size_t c = 0; c < n; c++) {
    size_t p = c;
    for (size_t i = c + 1; i < n; i++)
      if (fabs(m[i * n + c]) > fabs(m[p * n + c])) p = i;
    if (!(fabs(m[p * n + c]) > 0)) return false;
    if (p != c) {
      for (size_t j = 0; j < n; j++) {
        double t = m[c * n + j];
        m[c * n + j] = m[p * n + j];
        m[p * n + j] = t;
      }
      double t = b[c];
      b[c] = b[p];
      b[p] = t;
    }
    for (size_t i = c + 1; i < n; i++) {
      double f = m[i * n + c] / m[c * n + c];
      for (size_t j = c; j < n; j++) m[i * n + j] -= f * m[c * n + j];
      b[i] -= f * b[c];
    }
  }
  for (size_t c = n; c-- > 0;) {
    double v = b[c];
    for (size_t j = c + 1; j < n; j++) v -= m[c * n + j] * x[j];
    x[c] = v / m[c * n + c];
  }
  return true;
}

/* e_i = ln(simulated / measured) at point p, 0 for a row the fit does not
 * use (false: a row failed). */
static bool errors(const search *s, size_t p, double *e) {
  const a2_cal_point *pt = &s->r->points[p];
  for (size_t i = 0; i < s->r->t->nrows; i++) {
    e[i] = 0;
    if (!a2_cal_row_used(s->r, i)) continue;
    if (!pt->sims[i].ok) return false;
    e[i] = log(pt->sims[i].value / s->r->t->rows[i].measured);
  }
  return true;
}

/* Phase 2: Levenberg-Marquardt steps from the incumbent. */
static void lm(search *s, a2_cal_fit *f) {
  size_t nk = s->nk, nrows = s->r->t->nrows;
  double *e = calloc(nrows, sizeof *e), *ej = calloc(nrows, sizeof *ej),
         *jac = calloc(nk * nrows, sizeof *jac);
  if (!e || !ej || !jac) {
    free(e);
    free(ej);
    free(jac);
    return;
  }
  double lambda = 1e-3;
  char phase[64];
  for (s->step = 1; s->step <= MAX_STEPS && !s->out_of_budget && !s->rc; s->step++) {
    f->steps = s->step;
    if (s->fcur == 0 || !errors(s, s->icur, e)) {
      f->converged = s->fcur == 0;
      break;
    }
    /* The Jacobian: one point per key, 1 % up (down at the top of its range). */
    uint64_t v[A2_CAL_MAX_KEYS * A2_CAL_MAX_KEYS] = {0};
    double fv[A2_CAL_MAX_KEYS], dx[A2_CAL_MAX_KEYS];
    size_t idx[A2_CAL_MAX_KEYS];
    for (size_t k = 0; k < nk; k++) {
      const a2_cal_key *key = &s->o->keys[k];
      uint64_t *p = v + k * A2_CAL_MAX_KEYS;
      memcpy(p, s->cur, sizeof s->cur);
      double x = log((double)s->cur[k]);
      p[k] = quantize(key, x + FD);
      if (p[k] == s->cur[k]) p[k] = quantize(key, x - FD);
      uint64_t step = key->info.step > 1 ? key->info.step : 1;
      if (p[k] == s->cur[k] && s->cur[k] + step <= key->hi) p[k] = s->cur[k] + step;
      if (p[k] == s->cur[k] && s->cur[k] >= key->lo + step) p[k] = s->cur[k] - step;
      dx[k] = log((double)p[k]) - x;
    }
    snprintf(phase, sizeof phase, "Jacobian");
    s->phase = phase;
    eval(s, nk, v, fv, idx, true);
    if (s->out_of_budget || s->rc) break;
    for (size_t k = 0; k < nk; k++) {
      bool ok = dx[k] != 0 && errors(s, idx[k], ej);
      for (size_t i = 0; i < nrows; i++) jac[k * nrows + i] = ok ? (ej[i] - e[i]) / dx[k] : 0;
    }
    double a[A2_CAL_MAX_KEYS * A2_CAL_MAX_KEYS], g[A2_CAL_MAX_KEYS], dmax = 0;
    for (size_t k = 0; k < nk; k++) {
      g[k] = 0;
      for (size_t i = 0; i < nrows; i++) g[k] += jac[k * nrows + i] * e[i];
      for (size_t j = 0; j < nk; j++) {
        double sum = 0;
        for (size_t i = 0; i < nrows; i++) sum += jac[k * nrows + i] * jac[j * nrows + i];
        a[k * nk + j] = sum;
      }
      dmax = fmax(dmax, a[k * nk + k]);
    }
    if (dmax == 0) { /* no key moves a row here */
      f->converged = true;
      break;
    }
    bool accepted = false, still = false;
    snprintf(phase, sizeof phase, "damped step");
    for (int t = 0; t < MAX_TRIES && !s->out_of_budget && !s->rc; t++) {
      double m[A2_CAL_MAX_KEYS * A2_CAL_MAX_KEYS], b[A2_CAL_MAX_KEYS], d[A2_CAL_MAX_KEYS];
      memcpy(m, a, sizeof a);
      for (size_t k = 0; k < nk; k++) {
        m[k * nk + k] += lambda * (a[k * nk + k] + 1e-9 * dmax);
        b[k] = -g[k];
      }
      uint64_t cand[A2_CAL_MAX_KEYS];
      memcpy(cand, s->cur, sizeof cand);
      if (!solve(m, b, d, nk)) {
        lambda *= 8;
        continue;
      }
      for (size_t k = 0; k < nk; k++)
        cand[k] = quantize(&s->o->keys[k], log((double)s->cur[k]) + d[k]);
      if (!memcmp(cand, s->cur, sizeof cand)) { /* below the values' resolution */
        still = true;
        break;
      }
      double fc;
      size_t ic;
      eval(s, 1, cand, &fc, &ic, true);
      if (fc < s->fcur) {
        double moved = 0;
        for (size_t k = 0; k < nk; k++)
          moved = fmax(moved, fabs(log((double)cand[k]) - log((double)s->cur[k])));
        memcpy(s->cur, cand, sizeof cand);
        s->fcur = fc;
        s->icur = ic;
        lambda = fmax(lambda / 4, 1e-9);
        accepted = true;
        still = moved <= CONVERGED;
        break;
      }
      lambda *= 8;
    }
    if (still || (!accepted && !s->out_of_budget && !s->rc)) {
      f->converged = true;
      break;
    }
  }
  free(e);
  free(ej);
  free(jac);
}

static void search_run(search *s, a2_cal_fit *f) {
  sweep(s);
  if (!s->out_of_budget && !s->rc) lm(s, f);
}

/* ---- sensitivities ---- */

/* v rounded as the search rounds, inside the key's bounds. */
static uint64_t clampk(const a2_cal_key *k, double v) {
  return round5(k, v, k->info.min, k->info.max);
}

/* Perturb every key at point `base` (x1.1 and /1.1, at least one unit):
 * sens and moves (nkeys x nrows; 0 and false for a row the fit does not
 * use: it is not run there). */
static void sensitivities(search *s, size_t base, double *sens, bool *moves) {
  size_t nk = s->nk, nrows = s->r->t->nrows;
  uint64_t v[2 * A2_CAL_MAX_KEYS * A2_CAL_MAX_KEYS] = {0};
  double f[2 * A2_CAL_MAX_KEYS];
  size_t idx[2 * A2_CAL_MAX_KEYS];
  uint64_t b[A2_CAL_MAX_KEYS];
  memcpy(b, s->r->points[base].values, sizeof b);
  for (size_t k = 0; k < nk; k++) {
    const a2_cal_key *key = &s->o->keys[k];
    uint64_t up = clampk(key, (double)b[k] * PERTURB), down = clampk(key, (double)b[k] / PERTURB);
    uint64_t step = key->info.step > 1 ? key->info.step : 1;
    if (up == b[k] && b[k] + step <= key->info.max) up = b[k] + step;
    if (down == b[k] && b[k] >= key->info.min + step && b[k] > step) down = b[k] - step;
    memcpy(v + (2 * k) * A2_CAL_MAX_KEYS, b, sizeof b);
    memcpy(v + (2 * k + 1) * A2_CAL_MAX_KEYS, b, sizeof b);
    v[(2 * k) * A2_CAL_MAX_KEYS + k] = up;
    v[(2 * k + 1) * A2_CAL_MAX_KEYS + k] = down;
  }
  s->phase = "sensitivities";
  eval(s, 2 * nk, v, f, idx, false);
  if (s->rc) return;
  const a2_cal_point *p0 = &s->r->points[base];
  for (size_t k = 0; k < nk; k++) {
    const a2_cal_point *pu = &s->r->points[idx[2 * k]], *pd = &s->r->points[idx[2 * k + 1]];
    double lu = log((double)pu->values[k]), ld = log((double)pd->values[k]), l0 = log((double)b[k]);
    for (size_t i = 0; i < nrows; i++) {
      const a2_cal_sim *s0 = &p0->sims[i], *su = &pu->sims[i], *sd = &pd->sims[i];
      bool m = false;
      double d = 0;
      if (s0->ok && a2_cal_row_used(s->r, i)) {
        m = (su->ok ? strcmp(su->text, s0->text) != 0 : idx[2 * k] != base) ||
            (sd->ok ? strcmp(sd->text, s0->text) != 0 : idx[2 * k + 1] != base);
        if (su->ok && sd->ok && lu != ld)
          d = (log(su->value) - log(sd->value)) / (lu - ld);
        else if (su->ok && lu != l0)
          d = (log(su->value) - log(s0->value)) / (lu - l0);
        else if (sd->ok && ld != l0)
          d = (log(sd->value) - log(s0->value)) / (ld - l0);
      }
      sens[k * nrows + i] = d;
      moves[k * nrows + i] = m;
    }
  }
}

void a2_cal_fit_free(a2_cal_fit *f) {
  free(f->sens_start);
  free(f->moves_start);
  free(f->sens_best);
  free(f->moves_best);
  memset(f, 0, sizeof *f);
}

/* The search's state at the start point. */
static void search_init(search *s, a2_cal_runner *r, const a2_cal_fit *f) {
  memset(s, 0, sizeof *s);
  s->r = r;
  s->o = r->o;
  s->nk = r->o->nkeys;
  for (size_t k = 0; k < s->nk; k++) s->cur[k] = r->o->keys[k].start;
  if (f) {
    s->icur = f->start;
    s->fcur = r->points[f->start].residual;
  }
}

int a2_cal_fit_start(a2_cal_runner *r, a2_cal_fit *f) {
  const a2_cal_opts *o = r->o;
  size_t nk = o->nkeys, nrows = r->t->nrows;
  memset(f, 0, sizeof *f);
  f->sens_start = calloc(nk * nrows, sizeof *f->sens_start);
  f->moves_start = calloc(nk * nrows, sizeof *f->moves_start);
  f->sens_best = calloc(nk * nrows, sizeof *f->sens_best);
  f->moves_best = calloc(nk * nrows, sizeof *f->moves_best);
  if (!f->sens_start || !f->moves_start || !f->sens_best || !f->moves_best) {
    fprintf(stderr, "a2a3sim: error: calibrate: out of memory\n");
    return A2_EXIT_INTERNAL;
  }
  search s;
  search_init(&s, r, NULL);
  s.phase = "start";
  double f0;
  eval(&s, 1, s.cur, &f0, &f->start, false);
  if (s.rc) return s.rc;
  progress(&s, f->start);
  sensitivities(&s, f->start, f->sens_start, f->moves_start);
  if (s.rc) return s.rc;
  for (size_t k = 0; k < nk; k++) {
    bool any = false;
    for (size_t i = 0; i < nrows; i++) any |= f->moves_start[k * nrows + i];
    if (any) continue;
    const a2_cal_key *key = &o->keys[k];
    char a[64], b[64], c[64];
    a2_cal_format_value(key, s.cur[k], a, sizeof a);
    a2_cal_format_value(key, clampk(key, (double)s.cur[k] / PERTURB), b, sizeof b);
    a2_cal_format_value(key, clampk(key, (double)s.cur[k] * PERTURB), c, sizeof c);
    return a2_cmd_usage_error("--fit",
                              "%s: no row depends on it: changing it from %s to %s or %s changes "
                              "the simulated figure of no row the fit uses; fit keys that the "
                              "rows exercise",
                              key->path, a, b, c);
  }
  return 0;
}

int a2_cal_fit_search(a2_cal_runner *r, a2_cal_fit *f) {
  search s;
  search_init(&s, r, f);
  search_run(&s, f);
  if (s.rc) return s.rc;
  f->best = s.icur;
  f->evals = s.evals;
  s.step = 0;
  sensitivities(&s, f->best, f->sens_best, f->moves_best);
  if (s.rc) return s.rc;
  /* The rows the search did not run (held out, predict) at the fit. */
  uint64_t best[A2_CAL_MAX_KEYS];
  memcpy(best, r->points[f->best].values, sizeof best);
  size_t at;
  return a2_cal_run(r, 1, best, true, &at, NULL);
}
