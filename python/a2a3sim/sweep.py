"""a2a3sim.sweep, a2a3sim.fastest and a2a3sim.plot: grids of runs as a DataFrame.

sweep() runs the simulator's own `a2a3sim sweep` (docs/sweep.md): every point
is a child process, up to `jobs` at once (default: the machine's online
CPUs), and the grid's CSV is read as it is written, so the DataFrame is the
CSV's, row for row and column for column.
"""

import os
import shutil
import sys
import tempfile

from ._exec import config_path, execute, raise_for_exit, set_args
from .errors import InternalError


def _list(values):
    if isinstance(values, (list, tuple, range)):
        return ",".join(str(v) for v in values)
    return str(values)


def _axes(overrides):
    """`set` with lists of values -> --set KEY=V1,V2,.. (one axis a key)."""
    if not overrides:
        return []
    if isinstance(overrides, dict):
        return set_args({k: _list(v) for k, v in overrides.items()})
    return set_args(overrides)


def sweep_command(
    algo=None,
    ranks=None,
    sizes=None,
    set=None,
    config=None,
    data=True,
    jobs=None,
    hccl=None,
    hccl_device=None,
    timing=None,
    m=None,
    k=None,
    n=None,
    compute_cores=None,
    comm_cores=None,
    output=None,
):
    """The arguments after `a2a3sim` that sweep() passes."""
    args = ["sweep"]
    if algo is not None:
        args += ["--algo", _list(algo)]
    if hccl is not None:
        args += ["--hccl", str(hccl)]
    if hccl_device is not None:
        args += ["--hccl-device", str(hccl_device)]
    if ranks is not None:
        args += ["--ranks", _list(ranks)]
    if sizes is not None:
        args += ["--sizes", _list(sizes)]
    for name, value in (("m", m), ("k", k), ("n", n), ("compute-cores", compute_cores), ("comm-cores", comm_cores)):
        if value is not None:
            args += [f"--{name}", _list(value)]
    args += _axes(set)
    if timing is not None:
        args += ["--set", f"interconnect.timing={_list(timing)}"]
    if config is not None:
        args += ["--config", config_path(config)]
    if not data:
        args.append("--no-data")
    if jobs is not None:
        args += ["--jobs", str(int(jobs))]
    if output is not None:
        args += ["-o", os.fspath(output)]
    return args


def read_csv(path):
    """A sweep.csv as a DataFrame (pandas' defaults: numbers as numbers, empty as NaN)."""
    import pandas as pd

    return pd.read_csv(path)


def sweep(
    algo=None,
    ranks=None,
    sizes=None,
    set=None,
    config=None,
    data=True,
    jobs=None,
    hccl=None,
    hccl_device=None,
    timing=None,
    m=None,
    k=None,
    n=None,
    compute_cores=None,
    comm_cores=None,
    output=None,
    progress=None,
):
    """Run a grid of points and return the sweep's CSV as a pandas DataFrame.

    algo      built-ins, a list or "a,b,c"
    ranks     rank counts, a list or one
    sizes     "4KiB..4MiB:x4", "1KiB..8KiB:+1KiB", or a list of sizes
    set       config keys to vary: {"interconnect.link.bandwidth": ["28GB/s", "56GB/s"]}
              (one value: a plain override); every key with several values is
              an axis and a column named by the key
    timing    "reservation", or a list of timings as an axis
    m, k, n, compute_cores, comm_cores   the GEMM built-ins' shapes and cores
    hccl      an operation ("allreduce"): also HCCL's choice at every point
    data      False: every point timing-only (--no-data)
    jobs      points at once (default: the online CPUs)
    output    a directory to keep the sweep's files in (CSV, crossovers, plots);
              default: a temporary one, removed
    progress  the sweep's progress bar on stderr: default only when stderr
              is a terminal

    The columns are the CSV's (docs/sweep.md): algo, ranks, size_bytes, one
    per axis, time_ns, algbw_gbps, busbw_gbps, the measured card, the
    overlap card, ok, status, error. A point the collective refuses is a row
    with status REFUSED, one that failed a row with its status: neither
    raises. df.attrs["crossovers"] holds the crossover table
    (crossovers.txt), df.attrs["hccl"] HCCL's (with hccl=).
    A bad flag, algorithm, size spec or --set value raises InputError.
    """
    args = sweep_command(
        algo, ranks, sizes, set, config, data, jobs, hccl, hccl_device, timing, m, k, n, compute_cores, comm_cores
    )
    if progress is None:
        progress = sys.stderr.isatty()
    tmp = None
    if output is None:
        tmp = tempfile.mkdtemp(prefix="a2a3sim-sweep-")
        out = tmp
    else:
        out = os.fspath(output)
    try:
        done = execute(args + ["-o", out], tty_stderr=progress)
        # 1: a point failed (its row says so); the files are written
        raise_for_exit(done, allowed=(0, 1))
        csv = os.path.join(out, "sweep.csv")
        if not os.path.exists(csv):
            raise InternalError(f"a2a3sim sweep wrote no {csv}: {done.stderr.strip()}", done.argv, done.stderr)
        df = read_csv(csv)
        for name in ("crossovers", "hccl"):
            path = os.path.join(out, name + ".txt")
            if os.path.exists(path):
                with open(path) as f:
                    df.attrs[name] = f.read()
        df.attrs["command"] = done.argv
        if tmp is None:
            df.attrs["output"] = out
        return df
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _axis_columns(df):
    fixed = {
        "algo",
        "ranks",
        "size_bytes",
        "time_ns",
        "algbw_gbps",
        "busbw_gbps",
        "remote_read_bytes_per_rank",
        "remote_write_bytes_per_rank",
        "barrier_rounds",
        "compute_us",
        "comm_us",
        "sequential_us",
        "exposed_us",
        "overlap_eff",
        "tflops",
        "ok",
        "status",
        "error",
    }
    return [c for c in df.columns if c not in fixed]


def fastest(df, by=None):
    """The fastest algorithm at each size of a sweep's DataFrame, and the runner-up.

    One row per (ranks, every axis column, size): fastest, time_ns, next,
    next_time_ns and next_over_best (how much slower the runner-up is).
    Only OK rows count; times are compared in exact picoseconds (the CSV's
    3 decimals of ns), and a tie goes to the algorithm first in the sweep,
    as the sweep's crossovers.txt does. by: the grouping columns (default:
    ranks and every axis column).
    """
    import pandas as pd

    if by is None:
        by = ["ranks"] + _axis_columns(df)
    ok = df[df["status"] == "OK"].copy()
    order = {a: i for i, a in enumerate(dict.fromkeys(df["algo"]))}
    ok["_ps"] = (ok["time_ns"] * 1000).round().astype("int64")
    ok["_order"] = ok["algo"].map(order)
    rows = []
    for key, g in ok.groupby(by + ["size_bytes"], sort=False):
        g = g.sort_values(["_ps", "_order"], kind="stable")
        best = g.iloc[0]
        row = dict(zip(by + ["size_bytes"], key if isinstance(key, tuple) else (key,)))
        row["fastest"] = best["algo"]
        row["time_ns"] = best["time_ns"]
        if len(g) > 1:
            nxt = g.iloc[1]
            row["next"] = nxt["algo"]
            row["next_time_ns"] = nxt["time_ns"]
            row["next_over_best"] = nxt["_ps"] / best["_ps"] if best["_ps"] else float("nan")
        else:
            row["next"], row["next_time_ns"], row["next_over_best"] = None, float("nan"), float("nan")
        rows.append(row)
    return pd.DataFrame(rows)


def crossovers(df, by=None):
    """Where the fastest algorithm changes: one row per change, per group.

    Columns: the group's columns, from_algo, to_algo, up_to (the last size
    where from_algo is fastest) and from_size (the first where to_algo is):
    the true crossover lies between the two sizes.
    """
    import pandas as pd

    f = fastest(df, by)
    if by is None:
        by = ["ranks"] + _axis_columns(df)
    rows = []
    for key, g in f.groupby(by if len(by) > 1 else by[0], sort=False):
        g = g.sort_values("size_bytes")
        prev = None
        for _, r in g.iterrows():
            if prev is not None and r["fastest"] != prev["fastest"]:
                row = dict(zip(by, key if isinstance(key, tuple) else (key,)))
                row.update(
                    from_algo=prev["fastest"], to_algo=r["fastest"], up_to=prev["size_bytes"], from_size=r["size_bytes"]
                )
                rows.append(row)
            prev = r
    return pd.DataFrame(rows, columns=by + ["from_algo", "to_algo", "up_to", "from_size"])


_LABELS = {
    "time_us": "time (us)",
    "time_ns": "time (ns)",
    "busbw_gbps": "bus bandwidth (GB/s)",
    "algbw_gbps": "algorithm bandwidth (GB/s)",
    "size_bytes": "size per rank",
}


def size_label(n):
    """4096 -> "4 KiB" (docs/config.md's binary units), as the sweep's tables write sizes."""
    n = int(n)
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} B"


def plot(df, x="size_bytes", y="time_us", hue="algo", col=None, logx=True, logy=True, ax=None, title=None):
    """Draw a sweep's DataFrame with matplotlib: one line per `hue` value.

    y: any numeric column, or "time_us" (time_ns / 1000). col: a column to
    split into side-by-side panels (default: the sweep's axis columns, if
    any, joined). Only OK rows are drawn. Returns the matplotlib Figure;
    works under any backend, Agg included (fig.savefig("plot.png")).
    """
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullLocator

    axes_cols = [c for c in _axis_columns(df) if c not in (x, y, hue)]
    data = df[df["status"] == "OK"].copy() if "status" in df.columns else df.copy()
    if y == "time_us" and "time_us" not in data.columns:
        data["time_us"] = data["time_ns"] / 1000.0
    if col is None:
        if axes_cols:
            data["_panel"] = [", ".join(f"{c}={v}" for c, v in zip(axes_cols, vals)) for vals in data[axes_cols].itertuples(index=False)]
            col = "_panel"
    panels = list(dict.fromkeys(data[col])) if col else [None]
    if ax is None:
        fig, axs = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4), squeeze=False, sharey=True)
        axs = list(axs[0])
    else:
        fig = ax.figure
        axs = [ax] * len(panels)
    for a, panel in zip(axs, panels):
        part = data if panel is None else data[data[col] == panel]
        groups = list(dict.fromkeys(part[hue])) if hue else [None]
        for g in groups:
            line = part if g is None else part[part[hue] == g]
            line = line.sort_values(x)
            a.plot(line[x], line[y], marker="o", label=str(g) if g is not None else None)
        if logx:
            a.set_xscale("log", base=2 if x == "size_bytes" else 10)
        if logy and (part[y] > 0).all():
            a.set_yscale("log")
        if x == "size_bytes":
            ticks = sorted(part[x].unique())
            a.set_xticks(ticks, [size_label(t) for t in ticks], fontsize=8)
            a.xaxis.set_minor_locator(NullLocator())
        a.set_xlabel(_LABELS.get(x, x))
        a.set_ylabel(_LABELS.get(y, y))
        if panel is not None:
            a.set_title(panel if col == "_panel" else f"{col}={panel}", fontsize=9)
        a.grid(True, which="both", alpha=0.3)
        if hue:
            a.legend(fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
