"""a2a3sim.run: one simulation, as `a2a3sim run ... --json`."""

import json
import os
import shutil
import tempfile

from ._exec import PROGRAM_FLAG, config_path, execute, flag_args, raise_for_exit, set_args
from .errors import STATUS_ERRORS, InputError, InternalError, SimulationError
from .result import make_result


def _join(values):
    if isinstance(values, (list, tuple, range)):
        return ",".join(str(v) for v in values)
    return str(values)


def command(
    algo=None,
    program=None,
    ranks=None,
    devices=None,
    size=None,
    config=None,
    set=None,
    timing=None,
    data=True,
    race_check=True,
    params=None,
    **flags,
):
    """The arguments after `a2a3sim` that run() passes (program: a path)."""
    args = ["run"]
    if algo is not None:
        args += ["--algo", str(algo)]
    if program is not None:
        args += [PROGRAM_FLAG, os.fspath(program)]
    if devices is not None:
        args += ["-d", _join(devices)]
    if ranks is not None:
        args += ["--ranks", str(ranks)]
    if size is not None:
        args += ["--size", str(size)]
    for name, value in (params or {}).items():
        args += ["--param", f"{name}={value}"]
    if config is not None:
        args += ["--config", config_path(config)]
    args += set_args(set, timing)
    if not data:
        args.append("--no-data")
    if not race_check:
        args.append("--no-race-check")
    args += flag_args(flags)
    return args


def run(
    algo=None,
    program=None,
    ranks=None,
    devices=None,
    size=None,
    config=None,
    set=None,
    timing=None,
    data=True,
    race_check=True,
    params=None,
    check=True,
    **flags,
):
    """Run one simulation and return its Result.

    algo      a built-in (a2a3sim.algorithms()), or "allreduce" (HCCL's choice)
    program   a program file (.a2t, docs/program-format.md) or an a2a3sim.Program
    ranks     P: run on NPUs 0..P-1; or devices=[0, 1, 2, 3] (the tutorial's -d)
    size      bytes of each rank's slice: 4096 or "4KiB"
    config    a YAML file, or a shipped config's name ("a2-cluster")
    set       config overrides: {"interconnect.link.bandwidth": "56GB/s"}
    timing    "packet", "reservation" or "ordered" (interconnect.timing)
    data      False: timing-only (--no-data)
    race_check  False: --no-race-check
    params    a program's params: {"size": "1MiB"} (--param size=1MiB)
    check     True: a run that is not OK raises its SimulationError subclass
              (RaceError, DeadlockError, MismatchError, ...); False: return
              the Result and let .status / .ok say
    **flags   any other `a2a3sim run` flag (docs/cli.md): op="max",
              compute_cores=24, seeds=5, jitter="500ns", link_down=["0-1"],
              slow_rank={3: 0.5}, max_sim_time="10ms", ...

    Bad arguments and refused inputs raise InputError with the simulator's
    message (file:line:col for a file, the flag for a flag).
    """
    from .program import Program

    built = program if isinstance(program, Program) else None
    if built is not None and ranks is None and devices is None:
        ranks = built.nranks
    opts = dict(
        algo=algo,
        ranks=ranks,
        devices=devices,
        size=size,
        config=config,
        set=set,
        timing=timing,
        data=data,
        race_check=race_check,
        params=params,
        **flags,
    )

    def invoke(extra):
        tmp = tempfile.mkdtemp(prefix="a2a3sim-") if built is not None else None
        try:
            path = built.write(os.path.join(tmp, built.name + ".a2t")) if built is not None else program
            args = command(program=path, **opts) + list(extra) + ["--json"]
            done = execute(args)
            if done.returncode == 2 and built is not None:
                raise built.locate(InputError.from_stderr(done.stderr, done.argv), path)
            raise_for_exit(done, allowed=(0, 1))
            stderr = built.annotate(done.stderr, path) if built is not None else done.stderr
            return done, stderr
        finally:
            if tmp is not None:
                shutil.rmtree(tmp, ignore_errors=True)

    done, stderr = invoke([])
    try:
        raw = json.loads(done.stdout)
    except ValueError:
        raise InternalError(
            f"a2a3sim printed no JSON (exit {done.returncode}): {stderr.strip()}", done.argv, stderr
        ) from None
    result = make_result(
        raw,
        command=done.argv,
        stderr=stderr,
        rerun=invoke,
        name=built.name if built is not None else None,
    )
    if check and (done.returncode == 1 or not result.ok):
        status = raw.get("status")
        cls = STATUS_ERRORS.get(status, SimulationError)
        report = stderr.strip()
        head = f"{result.algo}: {status or 'failed'}"
        raise cls(f"{head}\n{report}" if report else head, result, done.argv, stderr, report)
    return result
