"""a2a3sim.run against the CLI: the same figures, the flags passed, the errors raised."""

import json
import os

import pytest

import a2a3sim


def test_time_is_the_cli_time(cli_json):
    r = a2a3sim.run(algo="allreduce_mesh", ranks=4)
    want = cli_json("run", "--algo", "allreduce_mesh", "--ranks", 4)
    assert r.time_ps == want["time_ps"]
    assert r.time_us == want["time_ps"] / 1e6
    assert r.time_ns == want["time_ns"]
    assert (r.algbw, r.busbw) == (want["algbw_gbps"], want["busbw_gbps"])
    assert r.status == "OK" and r.ok
    assert r.raw == want


def test_cost_card_and_per_rank_are_the_json(cli_json):
    r = a2a3sim.run(algo="allreduce_two_phase", ranks=8, size="64KiB")
    want = cli_json("run", "--algo", "allreduce_two_phase", "--ranks", 8, "--size", "64KiB")
    card = r.card
    for key, value in want["measured"].items():
        assert card.loc[key, "measured"] == value
        assert card.loc[key, "analytic"] == want["analytic"][key]
    assert card.loc["time_ps", "measured"] == want["time_ps"]
    assert card.loc["time_ps", "analytic"] == want["analytic"]["time_ps"]
    assert list(r.per_rank["rank"]) == list(range(8))
    assert list(r.per_rank["remote_read_bytes"]) == [p["remote_read_bytes"] for p in want["per_rank"]]
    assert list(r.links["bytes"]) == [l["bytes"] for l in want["links"]]
    assert list(r.hbm["utilization"]) == [h["utilization"] for h in want["hbm"]]


def test_flags_reach_the_simulator(cli_json):
    r = a2a3sim.run(
        algo="allreduce_ring",
        ranks=8,
        size="1MiB",
        set={"interconnect.link.bandwidth": "56GB/s"},
        timing="reservation",
        data=False,
        slow_rank={3: 0.5},
    )
    want = cli_json(
        "run", "--algo", "allreduce_ring", "--ranks", 8, "--size", "1MiB",
        "--set", "interconnect.link.bandwidth=56GB/s", "--set", "interconnect.timing=reservation",
        "--no-data", "--slow-rank", "3=0.5",
    )  # fmt: skip
    assert r.time_ps == want["time_ps"]
    assert r.mode == "timing-only"
    default = a2a3sim.run(algo="allreduce_ring", ranks=8, size="1MiB", data=False, timing="reservation")
    assert default.time_ps != r.time_ps


def test_overlap_card_of_a_fused_builtin(cli_json):
    r = a2a3sim.run(algo="gemm_allreduce", devices=[0, 1], compute_cores=4, comm_cores=4)
    want = cli_json("run", "--algo", "gemm_allreduce", "-d", "0,1", "--compute-cores", 4, "--comm-cores", 4)
    assert r.overlap == want["overlap"]
    assert r.overlap["compute_only_ps"] > 0
    assert a2a3sim.run(algo="allreduce_mesh", ranks=2).overlap is None


def test_program_file_and_params(in_repo, cli_json):
    path = "traces/examples/remote_copy.a2t"
    r = a2a3sim.run(program=path, ranks=2, params={"size": "64KiB"})
    want = cli_json("run", a2a3sim._exec.PROGRAM_FLAG, path, "--ranks", 2, "--param", "size=64KiB")
    assert r.time_ps == want["time_ps"]
    assert r.params == {"size": 65536}


def test_seeds_and_jobs(cli_json):
    s = a2a3sim.run(algo="allreduce_ring", ranks=8, size="64KiB", jitter="500ns", seeds=3)
    want = cli_json("run", "--algo", "allreduce_ring", "--ranks", 8, "--size", "64KiB", "--jitter", "500ns",
                    "--seeds", 3)  # fmt: skip
    assert list(s.seeds["time_us"]) == [x["time_us"] for x in want["seeds"]]
    assert s.time_us == want["time_median_us"]
    jobs = ["algo=allreduce_ring,ranks=0-3,size=64KiB", "algo=all_to_all,ranks=4-7,size=4KiB"]
    j = a2a3sim.run(config="ring-8", job=jobs)
    assert len(j.jobs) == 2 and (j.jobs["slowdown"] > 0).all()


def test_timeline_writes_the_perfetto_file(tmp_path):
    r = a2a3sim.run(algo="allreduce_mesh", ranks=2)
    path = r.timeline(tmp_path / "run.json")
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    names = {e.get("args", {}).get("name") for e in events if e.get("ph") == "M"}
    assert "rank 0 (npu 0)" in names and "rank 1 (npu 1)" in names


def test_race_raises_race_error(in_repo):
    path = "traces/examples/pitfalls/mesh_no_barrier.a2t"
    with pytest.raises(a2a3sim.RaceError) as e:
        a2a3sim.run(program=path, ranks=2)
    assert isinstance(e.value, a2a3sim.SimulationError)
    assert e.value.status == "RACE" and e.value.result.status == "RACE"
    assert "race on data@rank" in e.value.report
    r = a2a3sim.run(program=path, ranks=2, check=False)
    assert r.status == "RACE" and not r.ok and r.raw["race_check"]["races"] > 0


def test_deadlock_raises_deadlock_error(tmp_path):
    path = tmp_path / "dl.a2t"
    path.write_text("signal sig[$nranks]\nprogram\n  wait sig[0] ge 1\nend\n")
    with pytest.raises(a2a3sim.DeadlockError) as e:
        a2a3sim.run(program=path, ranks=2)
    assert "blocked at line 3" in e.value.report


def test_malformed_config_raises_with_file_line_col(tmp_path):
    path = tmp_path / "bad.yaml"
    value_line = "  ub_size: 12parsecs"
    path.write_text("chip:\n" + value_line + "\n")
    col = value_line.index("12parsecs") + 1
    with pytest.raises(a2a3sim.InputError) as e:
        a2a3sim.run(algo="allreduce_mesh", ranks=4, config=path)
    assert (e.value.file, e.value.line, e.value.col) == (str(path), 2, col)
    assert str(e.value).startswith(f"{path}:2:{col}: error: chip.ub_size:")
    assert "unknown unit 'parsecs'" in str(e.value)


def test_broken_yaml_raises_with_file_line_col(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("chip:\n  ub_size: [1\n")
    with pytest.raises(a2a3sim.InputError) as e:
        a2a3sim.run(algo="allreduce_mesh", ranks=4, config=path)
    assert e.value.file == str(path) and e.value.line == 2 and e.value.col is not None
    assert "invalid YAML" in e.value.what


@pytest.mark.parametrize(
    "kwargs, flag",
    [
        (dict(algo="no_such_algorithm", ranks=4), "--algo"),
        (dict(algo="allreduce_mesh", ranks=4, size="12parsecs"), "--size"),
        (dict(algo="allreduce_mesh", ranks=4, bogus_flag=1), "--bogus-flag"),
        (dict(algo="allreduce_mesh", ranks=4, set={"interconnect.link.bandwidth": "-3GB/s"}), "--set"),
    ],
)
def test_bad_argument_raises_input_error(kwargs, flag):
    with pytest.raises(a2a3sim.InputError) as e:
        a2a3sim.run(**kwargs)
    assert e.value.flag == flag
    assert str(e.value).startswith(f"error: {flag}: ")
    assert isinstance(e.value, ValueError)


def test_missing_binary_is_named(monkeypatch):
    monkeypatch.setenv("A2A3SIM", "/nonexistent/a2a3sim")
    with pytest.raises(a2a3sim.BinaryNotFoundError) as e:
        a2a3sim.run(algo="allreduce_mesh", ranks=2)
    assert "/nonexistent/a2a3sim" in str(e.value)


def test_binary_follows_the_environment(monkeypatch, binary):
    monkeypatch.setenv("A2A3SIM", binary)
    assert a2a3sim.binary() == binary
    assert os.access(a2a3sim.binary(), os.X_OK)
