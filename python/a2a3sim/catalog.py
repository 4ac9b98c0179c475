"""a2a3sim.algorithms() and a2a3sim.configs(): what the simulator has."""

import glob
import os
import re

from ._exec import execute, raise_for_exit, repo_path


def algorithms():
    """The built-in collectives, from `a2a3sim list`, as a DataFrame.

    Columns: name, description, card (the analytic cost card), hccl (HCCL's
    alpha-beta-gamma cost, where it has one; else empty).
    """
    import pandas as pd

    done = execute(["list"])
    raise_for_exit(done)
    rows = []
    for line in done.stdout.splitlines():
        if not line.strip():
            continue
        if not line[0].isspace():
            name, _, desc = line.partition(" ")
            rows.append({"name": name, "description": desc.strip(), "card": "", "hccl": ""})
        elif rows:
            key, _, text = line.strip().partition(": ")
            if key in ("card", "hccl"):
                rows[-1][key] = text
            else:
                rows[-1]["description"] += " " + line.strip()
    return pd.DataFrame(rows, columns=["name", "description", "card", "hccl"])


def _comment(path):
    """The leading comment of a config file, as one paragraph."""
    words = []
    with open(path) as f:
        for line in f:
            if not line.startswith("#"):
                break
            words.append(line[1:].strip())
    return " ".join(w for w in words if w)


def configs():
    """The shipped configs (the repo's configs/*.yaml), as a DataFrame.

    Columns: name, path, topology, ranks (interconnect.ranks), timing and
    description (the file's leading comment). Topology, ranks and timing are
    what `a2a3sim config check FILE` resolves.
    """
    import pandas as pd

    rows = []
    paths = glob.glob(repo_path("configs", "*.yaml"))
    for path in sorted(paths, key=lambda p: os.path.basename(p)[: -len(".yaml")]):
        done = execute(["config", "check", path])
        raise_for_exit(done)
        section, got = None, {}
        for line in done.stdout.splitlines():
            if re.match(r"^\S.*:\s*$", line):
                section = line.rstrip(":").strip()
                continue
            m = re.match(r"^  (\w+): (.*)$", line)
            if m and section == "interconnect" and m.group(1) in ("topology", "ranks", "timing"):
                got[m.group(1)] = m.group(2).strip()
        rows.append(
            {
                "name": os.path.basename(path)[: -len(".yaml")],
                "path": path,
                "topology": got.get("topology"),
                "ranks": int(got["ranks"]) if "ranks" in got else None,
                "timing": got.get("timing"),
                "description": _comment(path),
            }
        )
    return pd.DataFrame(rows, columns=["name", "path", "topology", "ranks", "timing", "description"])
