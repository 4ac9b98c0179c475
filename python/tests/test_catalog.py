"""a2a3sim.algorithms, a2a3sim.configs and a2a3sim.calibrate."""

import csv
import os

import pytest

import a2a3sim


def test_algorithms_are_the_list(cli):
    algos = a2a3sim.algorithms()
    names = [line.split()[0] for line in cli("list").stdout.splitlines() if line and not line[0].isspace()]
    assert list(algos["name"]) == names
    mesh = algos.set_index("name").loc["allreduce_mesh"]
    assert mesh["card"].startswith("remote read (P-1)*N per rank")
    assert "one barrier, every rank reads every peer" in mesh["description"]
    for name in names[:3]:  # each named one runs
        assert a2a3sim.run(algo=name, ranks=2, size=1024, data=False).ok


def test_configs_are_the_shipped_files(in_repo):
    cfg = a2a3sim.configs()
    files = sorted(f[: -len(".yaml")] for f in os.listdir("configs") if f.endswith(".yaml"))
    assert list(cfg["name"]) == files
    for _, row in cfg[cfg["name"].isin(["a2-8p-hccs", "ring-8", "a2-cluster"])].iterrows():
        r = a2a3sim.run(algo="allreduce_mesh", ranks=2, config=row["name"], data=False)
        assert (row["topology"], row["ranks"]) == (r.topology, r.interconnect_ranks)
        assert row["description"]


def _measured_rows(path):
    with open(path) as f:
        lines = [l for l in f if not l.lstrip().startswith("#") and l.strip()]
    return list(csv.DictReader(lines))


def test_calibrate_rows(in_repo):
    path = "configs/measured/tget.csv"
    df = a2a3sim.calibrate(path)
    want = _measured_rows(path)
    assert list(df["row"]) == [r["row"] for r in want]
    assert list(df["metric"]) == [r["metric"] for r in want]
    for _, row in df.iterrows():
        assert row["ratio"] == pytest.approx(row["simulated"] / row["measured"], rel=2e-3)
        assert row["within"] == (abs(row["ratio"] - 1) <= row["tolerance_pct"] / 100)
    first = want[0]
    r = a2a3sim.run(program=first["program"].replace("../../", ""), ranks=int(first["ranks"]), params={"size": first["size"]})
    assert df.iloc[0]["simulated"] == pytest.approx(r.time_us, rel=1e-4)


def test_calibrate_fit(in_repo, tmp_path):
    out = tmp_path / "fit.yaml"
    df = a2a3sim.calibrate(
        "configs/measured/tget.csv",
        set={"interconnect.link.latency": "310ns"},
        fit="interconnect.link.latency",
        max_evals=12,
        output=out,
    )
    assert set(df["phase"]) == {"before", "after"}
    start, fitted = df.attrs["fitted"]["interconnect.link.latency"]
    assert start == "310ns" and fitted != start
    assert df.attrs["residual_after"] < df.attrs["residual_before"]
    assert out.exists()
    assert any("--max-evals" in n for n in df.attrs["notes"])


def test_calibrate_several_files_holdout_and_groups(in_repo):
    files = ["configs/measured/tget.csv", "configs/measured/tget-copy.csv"]
    df = a2a3sim.calibrate(files, fit="interconnect.link.latency", holdout="pto-isa-tget", max_evals=6)
    held = df[df["group"] == "held_out"]
    assert set(held["row"]) == {r["row"] for r in _measured_rows(files[0])}
    assert set(held["phase"]) == {"before", "after"}
    used = df[df["group"] == "fit"]
    assert set(used["row"]) == {r["row"] for r in _measured_rows(files[1])}
    assert any(l.startswith("held-out rows: 6, median |error| ") for l in df.attrs["summary"])


def test_calibrate_malformed_csv_raises_with_file_line_col(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("row,program,ranks\n")
    with pytest.raises(a2a3sim.InputError) as e:
        a2a3sim.calibrate(path)
    assert (e.value.file, e.value.line) == (str(path), 1) and e.value.col is not None


def test_calibrate_rank_trends(in_repo):
    df = a2a3sim.calibrate("configs/measured/hccl-allgather.csv")
    assert df.attrs["rank_trends"] == "rank trends: 2 steps from one rank count to the next, 0 the other way"
