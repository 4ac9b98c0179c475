"""The program builder: the tutorial's all-reduces run OK, pitfalls are races, errors point at Python."""

import inspect
import os
import subprocess
import sys

import pytest

import a2a3sim
from allreduce_mesh import allreduce_mesh
from allreduce_two_phase import allreduce_two_phase
from gemm_allreduce_fused import gemm_allreduce_fused

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")


def example(name, *args):
    return subprocess.run(
        [sys.executable, os.path.join(EXAMPLES, name)] + list(args), capture_output=True, text=True
    )


def line_of(path, text):
    """The line number of the first line of PATH that holds TEXT."""
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if text in line:
                return n
    raise AssertionError(f"{text!r} not in {path}")


@pytest.mark.parametrize("devices", ["0,1,2,3", "0,1"])
def test_mesh_example_prints_ok(devices):
    done = example("allreduce_mesh.py", "-p", "a2a3sim", "-d", devices)
    assert (done.returncode, done.stdout) == (0, "OK\n"), done.stderr


def test_mesh_without_barrier_is_a_race_at_the_python_lines():
    done = example("allreduce_mesh.py", "-d", "0,1,2,3", "--no-barrier")
    assert (done.returncode, done.stdout) == (1, "RACE\n")
    src = os.path.join(EXAMPLES, "allreduce_mesh.py")
    load = line_of(src, "il.remote_load(")
    store = line_of(src, "il.store(acc, data")
    assert f"(remote_load) at {os.path.relpath(src)}:{load}" in done.stderr or f"allreduce_mesh.py:{load}" in done.stderr
    assert f"allreduce_mesh.py:{store}" in done.stderr


@pytest.mark.parametrize("devices", ["0,1,2,3", "0,1"])
def test_two_phase_example_prints_ok(devices):
    done = example("allreduce_two_phase.py", "-d", devices)
    assert (done.returncode, done.stdout) == (0, "OK\n"), done.stderr


def test_two_phase_on_one_signal_row_is_a_race():
    done = example("allreduce_two_phase.py", "-d", "0,1,2,3", "--one-signal-row")
    assert (done.returncode, done.stdout) == (1, "RACE\n")
    assert "race on result@rank" in done.stderr


def test_fused_gemm_example_prints_ok():
    done = example("gemm_allreduce_fused.py", "-d", "0,1")
    assert (done.returncode, done.stdout) == (0, "OK\n"), done.stderr


@pytest.mark.parametrize(
    "build, program, ranks",
    [
        (allreduce_mesh, "traces/examples/allreduce_mesh.a2t", 4),
        (allreduce_two_phase, "traces/examples/allreduce_two_phase.a2t", 4),
        (gemm_allreduce_fused, "traces/examples/gemm_allreduce_fused.a2t", 2),
    ],
)
def test_builder_program_runs_as_the_hand_written_file(in_repo, build, program, ranks):
    mine = build(ranks).run()
    theirs = a2a3sim.run(program=program, ranks=ranks)
    assert mine.ok and theirs.ok
    assert mine.time_ps == theirs.time_ps
    assert mine.raw["per_rank"] == theirs.raw["per_rank"]
    assert mine.raw["check"] == theirs.raw["check"]


def test_written_text_runs_with_the_cli(tmp_path, cli_json):
    prog = allreduce_mesh(4)
    path = prog.write(tmp_path / "mesh.a2t")
    want = cli_json("run", a2a3sim._exec.PROGRAM_FLAG, path, "--ranks", 4)
    got = prog.run()
    assert got.time_ps == want["time_ps"] and got.status == want["status"] == "OK"
    assert got.algo == "allreduce_mesh"


def test_devices_pick_the_npus():
    r = allreduce_mesh(2).run(devices=[0, 5])
    assert r.ok and r.ranks == 2


def _peer_out_of_range_program():
    prog = a2a3sim.Program("bad_peer", 2)
    data = prog.window("data", a2a3sim.fp32, 64)
    t = prog.tile("t", a2a3sim.fp32, 64)

    @prog.instructions()
    def body(il):
        il.load(t, data[0:64])
        il.remote_load(t, data.at(il.rank + 1)[0:64])  # rank 1 reads rank 2: there is none

    return prog, inspect.getsourcelines(body)[1] + 3


def test_refused_instruction_names_the_python_line():
    prog, line = _peer_out_of_range_program()
    with pytest.raises(a2a3sim.InputError) as e:
        prog.run()
    err = e.value
    assert (err.file, err.line) == (__file__, line)
    assert str(err).startswith(f"{os.path.relpath(__file__)}:{line}: error: remote_load: peer 2 outside 0..1 (rank 1)")
    assert prog.text().splitlines()[err.program_line - 1].strip() == "remote_load t, data@2[0:64]"
    assert err.program_col is not None


def test_region_past_a_buffer_names_the_python_line():
    prog = a2a3sim.Program("bad_region", 2)
    x = prog.tensor("x", a2a3sim.fp32, 64)
    t = prog.tile("t", a2a3sim.fp32, 64)

    @prog.instructions(rank=1)
    def body(il):
        il.load(t, x[32:96])

    with pytest.raises(a2a3sim.InputError) as e:
        prog.run()
    assert e.value.line == inspect.getsourcelines(body)[1] + 2
    assert e.value.program_text.strip() == "load t, x[32:64]"


def test_deadlock_report_names_the_python_line():
    prog = a2a3sim.Program("stuck", 2)
    sig = prog.signal("sig", 2)

    @prog.instructions()
    def body(il):
        il.wait(sig[1 - il.rank], expected=1)

    with pytest.raises(a2a3sim.DeadlockError) as e:
        prog.run()
    line = inspect.getsourcelines(body)[1] + 2
    assert f"{os.path.relpath(__file__)}:{line}" in e.value.report


def test_per_rank_and_per_core_programs():
    prog = a2a3sim.Program("cores", 2, cores=4)

    @prog.instructions(core="all")
    def everyone(il):
        il.compute(10 * (il.core + 1))

    @prog.instructions(rank=0, core=[1, 3])
    def extra(il):
        il.compute(1000)

    text = prog.text()
    assert text.count("program rank ") == 2 * 4 + 2
    assert "program rank 0 core 3\n  compute 1000\nend" in text
    r = prog.run()
    assert r.ok and r.time_ps > 0
    assert r.per_rank.loc[0, "time_ps"] > r.per_rank.loc[1, "time_ps"]


def test_declarations_are_checked_in_python():
    prog = a2a3sim.Program("decl", 2)
    prog.tensor("x", a2a3sim.fp32, 64)
    with pytest.raises(ValueError):
        prog.window("x", a2a3sim.fp32, 64)  # a buffer name twice
    with pytest.raises(ValueError):
        prog.tile("t", "bf16", 64)
    with pytest.raises(ValueError):
        a2a3sim.Program("none", 0)
