"""a2a3sim from Python: run, sweep and calibrate the simulator, and write programs.

    import a2a3sim
    r = a2a3sim.run(algo="allreduce_mesh", ranks=4)          # a Result
    print(r.time_us, r.busbw, r.status)
    df = a2a3sim.sweep(algo=["allreduce_mesh", "allreduce_two_phase"],
                       ranks=8, sizes="4KiB..1MiB:x4")        # a pandas DataFrame
    a2a3sim.plot(df).savefig("time.png")

The package drives the simulator binary (A2A3SIM, else the repo's
build/a2a3sim, else a2a3sim on PATH) and reads its JSON and CSV: the model is
never re-implemented here. docs/python.md is the reference.
"""

from ._exec import binary
from .calibrate import calibrate
from .catalog import algorithms, configs
from . import errors as _errors
from .errors import (
    A2a3simError,
    BinaryNotFoundError,
    DeadlockError,
    InputError,
    InternalError,
    LimitError,
    MismatchError,
    RaceError,
    SimulationError,
    UnroutedError,
)
from .program import InstrList, NotifyOp, Program, WaitCmp, fp16, fp32, int32
from .result import JobsResult, Result, SeedsResult
from .run import command as run_command
from .run import run
from .sweep import crossovers, fastest, plot, read_csv, size_label, sweep

__all__ = [
    "run",
    "run_command",
    "sweep",
    "plot",
    "fastest",
    "crossovers",
    "read_csv",
    "size_label",
    "calibrate",
    "algorithms",
    "configs",
    "binary",
    "Program",
    "InstrList",
    "NotifyOp",
    "WaitCmp",
    "fp32",
    "fp16",
    "int32",
    "Result",
    "SeedsResult",
    "JobsResult",
] + _errors.__all__
