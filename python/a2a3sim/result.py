"""The result of one `a2a3sim run`: its `--json` object, with names for its parts.

Every figure is the simulator's (docs/output.md lists the keys); nothing here
computes one. Tables (per-rank figures, links, HBM, the cost card) come as
pandas DataFrames, imported when first asked for.
"""

import os


def _frame(rows, columns=None):
    import pandas as pd

    return pd.DataFrame(rows, columns=columns)


class Result:
    """One run of the simulator (`a2a3sim run ... --json`).

    Attributes (docs/output.md, "JSON keys"):
      status     "OK", "FAIL", "RACE", "DEADLOCK", "TIMEOUT", "EVENT_LIMIT", "UNROUTED"
      ok         True when status is OK (and, with data, every element matched)
      mode       "functional" or "timing-only" (data=False)
      algo, ranks, size_bytes, dtype, config, topology, interconnect_ranks
      time_ps    simulated time, integer picoseconds (time_ns, time_us: the same)
      algbw, busbw   GB/s (10^9 B/s), None when the run did not finish
      check, race_check, measured, analytic, ratio, hccl_cost, overlap: dicts
                 as in the JSON (overlap and hccl_cost None when there is none)
      card       the cost card: DataFrame, one row per figure, columns
                 measured, analytic, ratio
      per_rank   DataFrame, one row per rank
      links, hbm DataFrames of every link port and HBM: bytes, busy_ps, utilization
      raw        the whole JSON object (a dict)
      stderr     what the simulator printed on stderr (notes, warnings, reports)
      command    the simulator's argv
    """

    def __init__(self, raw, command=None, stderr="", rerun=None, name=None):
        self.raw = raw
        self.command = list(command or [])
        self.stderr = stderr
        self._rerun = rerun
        self._name = name

    # --- scalars --------------------------------------------------------------
    def __getattr__(self, key):
        raw = self.__dict__.get("raw", {})
        if key in raw:
            return raw[key]
        raise AttributeError(f"{type(self).__name__} has no attribute {key!r} (JSON keys: {', '.join(raw)})")

    @property
    def algo(self):
        """The built-in's name, a Program's name, else the program file."""
        return self._name or self.raw.get("algo")

    @property
    def time_ps(self):
        return self.raw["time_ps"]

    @property
    def time_ns(self):
        return self.raw["time_ns"]

    @property
    def time_us(self):
        """Simulated time in microseconds (time_ps / 10^6)."""
        return self.raw["time_ps"] / 1e6

    @property
    def algbw(self):
        """Algorithm bandwidth in GB/s (S / time, nccl-tests' S)."""
        return self.raw.get("algbw_gbps")

    @property
    def busbw(self):
        """Bus bandwidth in GB/s (algbw x nccl-tests' bus factor)."""
        return self.raw.get("busbw_gbps")

    @property
    def ok(self):
        return bool(self.raw.get("ok"))

    @property
    def status(self):
        return self.raw.get("status")

    @property
    def overlap(self):
        """A fused built-in's overlap card (compute-only, comm-only, ... in ps), or None."""
        return self.raw.get("overlap")

    @property
    def hccl_cost(self):
        return self.raw.get("hccl_cost")

    # --- tables ---------------------------------------------------------------
    @property
    def card(self):
        """The cost card: measured, analytic and their ratio, one row per figure.

        Rows: remote_read_bytes_per_rank, remote_write_bytes_per_rank,
        barrier_rounds, time_ps. Analytic and ratio are NaN where the program
        has no card (a program without `card` or `builtin` line) or no closed
        form applies, as the text report's `-`.
        """
        measured = dict(self.raw.get("measured") or {})
        measured["time_ps"] = self.raw.get("time_ps")
        analytic = self.raw.get("analytic") or {}
        ratio = dict(self.raw.get("ratio") or {})
        if "time" in ratio:
            ratio["time_ps"] = ratio.pop("time")
        names = ["remote_read_bytes_per_rank", "remote_write_bytes_per_rank", "barrier_rounds", "time_ps"]
        rows = [[measured.get(n), analytic.get(n), ratio.get(n)] for n in names]
        df = _frame(rows, ["measured", "analytic", "ratio"])
        df.index = names
        return df.astype(float)

    @property
    def per_rank(self):
        return _frame(self.raw.get("per_rank") or [])

    @property
    def links(self):
        """Every link port that moved data: from, to (-1 = the switch), bytes, busy_ps, utilization."""
        return _frame(self.raw.get("links") or [], ["from", "to", "bytes", "busy_ps", "utilization"])

    @property
    def hbm(self):
        """Every rank's HBM: rank, bytes, busy_ps, utilization."""
        return _frame(self.raw.get("hbm") or [], ["rank", "bytes", "busy_ps", "utilization"])

    @property
    def utilisation(self):
        """{'links': links, 'hbm': hbm}: the busy fraction of each link port and HBM."""
        return {"links": self.links, "hbm": self.hbm}

    # --- actions --------------------------------------------------------------
    def timeline(self, path):
        """Write the run's Perfetto timeline (Chrome Trace Event JSON) to PATH.

        Runs the same command again with `--timeline PATH` (the simulator is
        deterministic: the same run) and returns PATH; open it at
        https://ui.perfetto.dev.
        """
        if self._rerun is None:
            raise ValueError("this result cannot be re-run")
        path = os.fspath(path)
        self._rerun(["--timeline", path])
        return path

    def __repr__(self):
        if "time_ps" not in self.raw:
            return f"Result({self.raw!r})"
        bw = f", busbw {self.busbw:.3f} GB/s" if self.busbw is not None else ""
        return (
            f"Result({self.algo}: P={self.raw.get('ranks')} N={self.raw.get('size_bytes')} B, "
            f"{self.status}, {self.time_us:.3f} us{bw})"
        )


class SeedsResult(Result):
    """`seeds=K` (with jitter): each seed's time and the spread (docs/cli.md, "Faults").

    seeds is a DataFrame (seed, time_us); time_min_us, time_median_us,
    time_max_us and jitter_us as the JSON; time_us is the median.
    """

    @property
    def seeds(self):
        return _frame(self.raw["seeds"])

    @property
    def time_us(self):
        return self.raw["time_median_us"]

    @property
    def time_ps(self):
        return round(self.raw["time_median_us"] * 1e6)

    @property
    def ok(self):
        return True

    @property
    def status(self):
        return "OK"

    def __repr__(self):
        return (
            f"SeedsResult({len(self.raw['seeds'])} seeds: {self.raw['time_min_us']:.3f} .. "
            f"{self.raw['time_max_us']:.3f} us, median {self.raw['time_median_us']:.3f} us)"
        )


class JobsResult(Result):
    """Several jobs on one fabric (`job=[...]` or a config's `jobs:` list).

    jobs is a DataFrame: job, algo, npus, ranks, size_bytes, start_ps,
    alone_ps, together_ps, slowdown (docs/cli.md, "Several jobs").
    """

    @property
    def jobs(self):
        return _frame(self.raw["jobs"])

    @property
    def ok(self):
        return True

    @property
    def status(self):
        return "OK"

    def __repr__(self):
        parts = ", ".join(f"{j['algo']} x{j['slowdown']:.3f}" for j in self.raw["jobs"])
        return f"JobsResult({parts})"


def make_result(raw, **kw):
    if "seeds" in raw:
        return SeedsResult(raw, **kw)
    if "jobs" in raw:
        return JobsResult(raw, **kw)
    return Result(raw, **kw)
