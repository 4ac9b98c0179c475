"""The exceptions of the a2a3sim package.

Every failure of the simulator reaches Python as one of these, carrying the
simulator's own message (nothing is printed and swallowed):

    A2a3simError
      InputError        exit 2: a bad flag or argument, a config or program the
                        simulator refuses (file:line:col in .file/.line/.col)
      SimulationError   exit 1: the run finished but is not OK (.result, .report)
        MismatchError     status FAIL: output elements differ from the golden
        RaceError         status RACE: accesses no notify/wait orders
        DeadlockError     status DEADLOCK: cores blocked with no event left
        LimitError        status TIMEOUT or EVENT_LIMIT (--max-sim-time, --max-events)
        UnroutedError     status UNROUTED: a failed link left transfers no route
      InternalError     exit 3 (out of memory, a simulator bug), a signal, or
                        output that is not the documented JSON
      BinaryNotFoundError  no a2a3sim binary where the package looks for it
"""

import re

__all__ = [
    "A2a3simError",
    "InputError",
    "SimulationError",
    "MismatchError",
    "RaceError",
    "DeadlockError",
    "LimitError",
    "UnroutedError",
    "InternalError",
    "BinaryNotFoundError",
]


class A2a3simError(Exception):
    """Base class: .command is the simulator's argv, .stderr what it printed."""

    def __init__(self, message, command=None, stderr=""):
        super().__init__(message)
        self.message = message
        self.command = list(command) if command else []
        self.stderr = stderr


# "a2a3sim: FILE:LINE:COL: error: MESSAGE" (files) and
# "a2a3sim: error: --flag: MESSAGE" (flags and overrides), docs/cli.md.
_FILE_ERROR = re.compile(r"^a2a3sim: (?P<file>.+?):(?P<line>\d+):(?P<col>\d+): error: (?P<what>.*)$")
_FILE_ERROR_LINE = re.compile(r"^a2a3sim: (?P<file>.+?):(?P<line>\d+): error: (?P<what>.*)$")
_FILE_ERROR_NOPOS = re.compile(r"^a2a3sim: (?P<file>[^:]+?): error: (?P<what>.*)$")
_FLAG_ERROR = re.compile(r"^a2a3sim: error: (?P<flag>-[-\w]*): (?P<what>.*)$")
# Tried in this order: the most specific place first.
_ERROR_FORMS = (_FILE_ERROR, _FILE_ERROR_LINE, _FLAG_ERROR, _FILE_ERROR_NOPOS)


class InputError(A2a3simError, ValueError):
    """The simulator refused its input (exit 2).

    .message is the simulator's error line without its "a2a3sim: " prefix,
    e.g. "bad.yaml:2:12: error: chip.ub_size: '12parsecs': unknown unit ...";
    .file, .line, .col name the place when the error is in a file (None
    otherwise), .flag the flag when it is about one ("--size"), .what the
    text after "error: ".
    """

    def __init__(self, message, command=None, stderr="", file=None, line=None, col=None, flag=None, what=None):
        super().__init__(message, command, stderr)
        self.file = file
        self.line = line
        self.col = col
        self.flag = flag
        self.what = what if what is not None else message

    @classmethod
    def from_stderr(cls, stderr, command=None):
        """The first error line of the simulator's stderr, parsed."""
        lines = [l for l in stderr.splitlines() if l.strip()]
        pick = next((l for l in lines if ": error: " in l or l.startswith("a2a3sim: error:")), None)
        if pick is None:
            pick = lines[0] if lines else "a2a3sim: error: input refused (exit 2) with no message"
        for pattern in _ERROR_FORMS:
            m = pattern.match(pick)
            if m:
                place = m.groupdict()
                for k in ("line", "col"):
                    if k in place:
                        place[k] = int(place[k])
                return cls(pick[len("a2a3sim: ") :], command, stderr, **place)
        msg = pick[len("a2a3sim: ") :] if pick.startswith("a2a3sim: ") else pick
        return cls(msg, command, stderr)


class SimulationError(A2a3simError):
    """The run ended but is not OK (exit 1).

    .result is the full Result (time, cost card, per-rank figures: the run
    did happen), .status its status string, .report the simulator's report
    on stderr (race pairs, blocked waits, mismatches).
    """

    status = None

    def __init__(self, message, result=None, command=None, stderr="", report=""):
        super().__init__(message, command, stderr)
        self.result = result
        self.report = report
        if result is not None and getattr(result, "status", None):
            self.status = result.status


class MismatchError(SimulationError):
    """Status FAIL: output elements outside the golden's tolerance."""

    status = "FAIL"


class RaceError(SimulationError):
    """Status RACE: two accesses to the same bytes that no notify/wait orders."""

    status = "RACE"


class DeadlockError(SimulationError):
    """Status DEADLOCK: no event left and cores still blocked in a wait."""

    status = "DEADLOCK"


class LimitError(SimulationError):
    """Status TIMEOUT (--max-sim-time) or EVENT_LIMIT (--max-events)."""

    status = "TIMEOUT"


class UnroutedError(SimulationError):
    """Status UNROUTED: --link-down left transfers no route."""

    status = "UNROUTED"


class InternalError(A2a3simError):
    """Exit 3 (out of memory, an internal error), a signal, or unreadable output."""


class BinaryNotFoundError(A2a3simError, FileNotFoundError):
    """No a2a3sim binary: set A2A3SIM or build the repo's build/a2a3sim."""


STATUS_ERRORS = {
    "FAIL": MismatchError,
    "RACE": RaceError,
    "DEADLOCK": DeadlockError,
    "TIMEOUT": LimitError,
    "EVENT_LIMIT": LimitError,
    "UNROUTED": UnroutedError,
}
