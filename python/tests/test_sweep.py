"""a2a3sim.sweep against `a2a3sim sweep`: the same table, the crossovers, the plot."""

import re

import pandas as pd
import pytest

import a2a3sim

ALGOS = ["allreduce_mesh", "allreduce_two_phase", "allreduce_ring"]
SIZES = "1KiB..16MiB:x4"  # 8 sizes


@pytest.fixture(scope="module")
def grid(tmp_path_factory, cli):
    """The 24-point grid (3 algorithms x 8 sizes at P=8, timing-only), from Python and from the CLI."""
    kept = tmp_path_factory.mktemp("py")
    df = a2a3sim.sweep(algo=ALGOS, ranks=8, sizes=SIZES, data=False, output=kept)
    out = tmp_path_factory.mktemp("cli")
    cli("sweep", "--algo", ",".join(ALGOS), "--ranks", 8, "--sizes", SIZES, "--no-data", "-o", out)
    return df, kept, out


def test_sweep_dataframe_equals_the_cli_csv(grid):
    df, _, out = grid
    want = pd.read_csv(out / "sweep.csv")
    assert len(df) == 24
    pd.testing.assert_frame_equal(df, want)
    header = (out / "sweep.csv").read_text().splitlines()[0].split(",")
    assert list(df.columns) == header


def test_sweep_files_are_the_cli_files_byte_for_byte(grid):
    _, kept, out = grid
    for name in ("sweep.csv", "crossovers.txt"):
        assert (kept / name).read_bytes() == (out / name).read_bytes()


def test_a_point_is_the_run_of_that_point(grid):
    df, _, _ = grid
    row = df[(df["algo"] == "allreduce_ring") & (df["size_bytes"] == 65536)].iloc[0]
    r = a2a3sim.run(algo="allreduce_ring", ranks=8, size=65536, data=False)
    assert row["time_ns"] == r.time_ns
    assert row["busbw_gbps"] == r.busbw
    assert row["remote_read_bytes_per_rank"] == r.measured["remote_read_bytes_per_rank"]


def _table_of_crossovers_txt(text):
    """size label -> fastest, from the sweep's own crossovers.txt."""
    got = {}
    for line in text.splitlines():
        m = re.match(r"^\s+(\d+ (?:B|KiB|MiB|GiB))\s+(\S+)\s+[\d.]+\s", line)
        if m:
            got[m.group(1)] = m.group(2)
    return got


def _label(size):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"


def test_fastest_agrees_with_the_sweeps_crossovers(grid):
    df, _, _ = grid
    fast = a2a3sim.fastest(df)
    want = _table_of_crossovers_txt(df.attrs["crossovers"])
    assert len(want) == 8
    assert {_label(s): a for s, a in zip(fast["size_bytes"], fast["fastest"])} == want
    changes = a2a3sim.crossovers(df)
    m = re.search(r"P=8: (\S+) fastest up to (\d+ \w+), (\S+) from (\d+ \w+)", df.attrs["crossovers"])
    assert m, df.attrs["crossovers"]
    first = changes.iloc[0]
    assert (first["from_algo"], _label(first["up_to"]), first["to_algo"], _label(first["from_size"])) == m.groups()


def test_set_axes_are_columns(tmp_path):
    df = a2a3sim.sweep(
        algo="allreduce_mesh",
        ranks=[2, 4],
        sizes=[256, 4096],
        set={"interconnect.link.bandwidth": ["28GB/s", "56GB/s"]},
        data=False,
    )
    assert len(df) == 2 * 2 * 2
    assert list(df["interconnect.link.bandwidth"].unique()) == ["28GB/s", "56GB/s"]
    assert (df["status"] == "OK").all()


def test_a_refused_point_is_a_row(tmp_path):
    df = a2a3sim.sweep(algo="allreduce_two_phase", ranks=3, sizes=[256, 768], data=False)
    refused = df[df["size_bytes"] == 256].iloc[0]
    assert refused["status"] == "REFUSED" and not refused["ok"]
    assert "--size" in refused["error"]
    assert df[df["size_bytes"] == 768].iloc[0]["status"] == "OK"


def test_bad_sweep_raises_input_error():
    with pytest.raises(a2a3sim.InputError) as e:
        a2a3sim.sweep(algo="allreduce_mesh", ranks=4, sizes="1..x")
    assert e.value.flag == "--sizes"


def test_progress_bar_only_when_asked(capfd):
    a2a3sim.sweep(algo="allreduce_mesh", ranks=2, sizes=[256, 1024], data=False, progress=True)
    err = capfd.readouterr().err
    assert "2/2 points" in err
    a2a3sim.sweep(algo="allreduce_mesh", ranks=2, sizes=[256, 1024], data=False)  # stderr is not a terminal
    assert "points" not in capfd.readouterr().err


def test_plot_draws_with_agg(grid, tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    df, _, _ = grid
    fig = a2a3sim.plot(df, x="size_bytes", y="time_us", hue="algo")
    ax = fig.axes[0]
    assert [l.get_label() for l in ax.get_lines()] == ALGOS
    mesh = ax.get_lines()[0]
    assert list(mesh.get_ydata()) == list(df[df["algo"] == "allreduce_mesh"]["time_ns"] / 1000)
    fig.savefig(tmp_path / "time.png")
    assert (tmp_path / "time.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
