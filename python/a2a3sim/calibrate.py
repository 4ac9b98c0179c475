"""a2a3sim.calibrate: measurements against the simulator (`a2a3sim calibrate`)."""

import os
import re
import sys

from ._exec import config_path, execute, raise_for_exit, set_args
from .errors import SimulationError

_ROW = re.compile(
    r"^(?P<row>\S+)\s+(?P<program>\S+)\s+(?P<metric>\S+)\s+"
    r"(?P<measured>\S+) (?P<measured_unit>\S+)\s+(?P<simulated>\S+) (?P<simulated_unit>\S+)\s+"
    r"(?P<ratio>\S+)(?:\s+(?P<log_ratio>[+-]\S+))?\s+(?P<tol>[\d.]+)%\s+(?P<within>yes|NO)$"
)


def _number(text):
    try:
        return float(text)
    except ValueError:
        return float("nan")


def calibrate(csv, config=None, set=None, fit=None, max_evals=None, output=None, jobs=None, progress=None,
              holdout=None):
    """Run CSVs of measurements (docs/calibrate.md) and return their rows as a DataFrame.

    csv       the measurements (a path, or a list of paths):
              row,program,ranks,size,args,metric,measured,tolerance,source,role
    config, set   the config every row runs with (as run())
    fit       config keys to fit: "interconnect.link.latency", a list, or a dict
              KEY -> "LO..HI" (a range) or None
    max_evals the fit's budget of points; output: where to write the fitted YAML
    holdout   with fit: a source (or a list) whose rows the fit leaves out
    progress  the fit's progress lines on stderr (default: when stderr is a terminal)

    Columns: row, program, metric, measured, measured_unit, simulated,
    simulated_unit, ratio, tolerance_pct, within (bool), group ("fit", or
    "predict" for rows of role predict, "held_out" for rows of a holdout
    source); with fit also phase ("before" / "after") and log_ratio.
    df.attrs: "fitted" (KEY -> (start, fitted), as printed), "notes" (a
    list), "residual_before", "residual_after", "summary" (the summary lines:
    rows, median and worst |error|), "text" (the whole report). A malformed
    CSV raises InputError with FILE:LINE:COL; a row whose run FAILs,
    SimulationError.
    """
    import pandas as pd

    paths = [csv] if isinstance(csv, (str, os.PathLike)) else list(csv)
    args = ["calibrate"] + [os.fspath(p) for p in paths]
    if holdout is not None:
        args += ["--holdout", holdout if isinstance(holdout, str) else ",".join(holdout)]
    if config is not None:
        args += ["--config", config_path(config)]
    args += set_args(set)
    if fit is not None:
        if isinstance(fit, dict):
            keys = [k if v is None else f"{k}={v}" for k, v in fit.items()]
        elif isinstance(fit, str):
            keys = [fit]
        else:
            keys = list(fit)
        args += ["--fit", ",".join(keys)]
        if max_evals is not None:
            args += ["--max-evals", str(int(max_evals))]
        if output is not None:
            args += ["-o", os.fspath(output)]
    if jobs is not None:
        args += ["--jobs", str(int(jobs))]
    if progress is None:
        progress = sys.stderr.isatty()
    done = execute(args, tty_stderr=progress and fit is not None)
    raise_for_exit(done)
    if done.returncode == 1:
        raise SimulationError(done.stderr.strip() or "a row's run failed", None, done.argv, done.stderr, done.stderr)

    rows, fitted, notes, summary = [], {}, [], []
    attrs = {"text": done.stdout}
    phase = None if fit is None else "before"
    group = "fit"
    section = None
    for line in done.stdout.splitlines():
        if line.startswith("before the fit:"):
            phase, group = "before", "fit"
            attrs["residual_before"] = _number(re.search(r"residual (\S+)", line).group(1).rstrip(";"))
        elif line.startswith("after the fit:"):
            phase, group = "after", "fit"
            attrs["residual_after"] = _number(re.search(r"residual (\S+)", line).group(1).rstrip(";"))
        elif line.startswith(("predicted rows (", "held-out rows (")):  # a table of rows no fit uses
            group = "predict" if line.startswith("predicted") else "held_out"
            if fit is not None:
                phase = "before" if line.endswith(", at the start:") else "after"
        elif re.match(r"^(fit|predicted|held-out) rows: ", line):
            summary.append(line)
        elif line.startswith("rank trends: "):  # docs/calibrate.md, "Rank trends"
            attrs["rank_trends"] = line
        elif line in ("fitted:", "notes:"):
            section = line[:-1]
            continue
        m = _ROW.match(line)
        if m and m.group("row") != "row":
            d = m.groupdict()
            row = {
                "row": d["row"],
                "program": d["program"],
                "metric": d["metric"],
                "measured": _number(d["measured"]),
                "measured_unit": d["measured_unit"],
                "simulated": _number(d["simulated"]),
                "simulated_unit": d["simulated_unit"],
                "ratio": _number(d["ratio"]),
                "tolerance_pct": _number(d["tol"]),
                "within": d["within"] == "yes",
                "group": group,
            }
            if phase is not None:
                row["phase"] = phase
                row["log_ratio"] = _number(d["log_ratio"]) if d["log_ratio"] else float("nan")
            rows.append(row)
            continue
        if section == "fitted":
            f = re.match(r"^  (\S+): (\S+) -> (\S+)$", line)
            if f:
                fitted[f.group(1)] = (f.group(2), f.group(3))
                continue
        if section == "notes" and line.startswith("  - "):
            notes.append(line[4:])
            continue
        if not line.startswith(" "):
            section = None
    df = pd.DataFrame(rows)
    attrs["fitted"] = fitted
    attrs["notes"] = notes
    attrs["summary"] = summary
    df.attrs.update(attrs)
    return df
