// Thin C++ shim between the C model and SystemC. See kernel.h for the rules.
#include "model/kernel/kernel.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <vector>

#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

namespace {

struct Proc {
  sc_core::sc_event ev;
  a2k_fn fn;
  void *ctx;
  Proc(const char *n, a2k_fn f, void *c) : ev(n), fn(f), ctx(c) {}
};

std::vector<Proc *> g_procs;
uint64_t g_activations = 0;
uint64_t g_event_limit = 0; // 0 = none
bool g_limit_hit = false;
bool g_ready = false;

// The functor SystemC runs for a process: count, then call into C.
struct Trampoline {
  Proc *p;
  void operator()() const {
    if (g_limit_hit) return;
    if (g_event_limit && g_activations >= g_event_limit) {
      g_limit_hit = true;
      sc_core::sc_stop();
      return;
    }
    ++g_activations;
    p->fn(p->ctx);
  }
};

a2_code kernel_error(a2_err *err, const char *what, const char *detail) {
  return a2_err_set(err, A2_E_KERNEL, nullptr, 0, 0, "SystemC %s: %s", what, detail);
}

}  // namespace

// libsystemc's own main() is never used (the C program owns main), but the
// library references sc_main, so it must exist.
int sc_main(int, char **) { return 0; }

extern "C" {

a2_code a2k_init(a2_err *err) {
  if (g_ready) return A2_OK;
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  try {
    // Also silence the "sc_set_time_resolution after time object" path:
    // the first call below creates the default simcontext.
    sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
    // Deprecation/info chatter would go to stdout, which carries results.
    sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DO_NOTHING);
  } catch (const std::exception &e) {
    return kernel_error(err, "init", e.what());
  }
  g_ready = true;
  return A2_OK;
}

a2_code a2k_proc_create(const char *name, a2k_fn fn, void *ctx, a2k_proc *out, a2_err *err) {
  if (!g_ready) return a2_err_set(err, A2_E_INTERNAL, nullptr, 0, 0, "a2k_init not called");
  try {
    char ev_name[96];
    std::snprintf(ev_name, sizeof ev_name, "%s_ev%zu", name, g_procs.size());
    Proc *p = new Proc(ev_name, fn, ctx);
    sc_core::sc_spawn_options opts;
    opts.spawn_method();
    opts.dont_initialize();
    opts.set_sensitivity(&p->ev);
    char proc_name[96];
    std::snprintf(proc_name, sizeof proc_name, "%s_p%zu", name, g_procs.size());
    sc_core::sc_spawn(Trampoline{p}, proc_name, &opts);
    *out = static_cast<a2k_proc>(g_procs.size());
    g_procs.push_back(p);
  } catch (const std::exception &e) {
    return kernel_error(err, "process creation", e.what());
  }
  return A2_OK;
}

void a2k_wake_at(a2k_proc p, uint64_t t_ps) {
  uint64_t now = sc_core::sc_time_stamp().value();
  Proc *pr = g_procs[p];
  if (t_ps <= now)
    pr->ev.notify(sc_core::SC_ZERO_TIME);
  else
    pr->ev.notify(sc_core::sc_time::from_value(t_ps - now));
}

uint64_t a2k_now_ps(void) { return sc_core::sc_time_stamp().value(); }

void a2k_set_event_limit(uint64_t max_activations) { g_event_limit = max_activations; }

a2_code a2k_run(uint64_t until_ps, a2k_stop *why, a2_err *err) {
  if (g_limit_hit) {
    *why = A2K_EVENT_LIMIT;
    return A2_OK;
  }
  try {
    uint64_t now = sc_core::sc_time_stamp().value();
    if (until_ps <= now) {
      *why = sc_core::sc_pending_activity() ? A2K_TIME_LIMIT : A2K_IDLE;
      return A2_OK;
    }
    sc_core::sc_start(sc_core::sc_time::from_value(until_ps - now), sc_core::SC_EXIT_ON_STARVATION);
    *why = g_limit_hit                      ? A2K_EVENT_LIMIT
           : sc_core::sc_pending_activity() ? A2K_TIME_LIMIT
                                            : A2K_IDLE;
  } catch (const std::exception &e) {
    return kernel_error(err, "run", e.what());
  } catch (...) {
    return kernel_error(err, "run", "unknown exception");
  }
  return A2_OK;
}

uint64_t a2k_activations(void) { return g_activations; }

uint32_t a2k_proc_count(void) { return static_cast<uint32_t>(g_procs.size()); }

}  // extern "C"
