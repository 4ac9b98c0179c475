"""Finding the a2a3sim binary and running it as a child process.

The package never models anything itself: every figure comes from the
simulator's own output (`--json`, the sweep's CSV, the calibrate table). A
simulation's state belongs to its process, so each call is a child process.
"""

import os
import shutil
import signal
import subprocess
import sys
import threading

from .errors import BinaryNotFoundError, InputError, InternalError

# The flag that names a program file (docs/cli.md).
PROGRAM_FLAG = "--program"

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(os.path.dirname(_PACKAGE_DIR))


def binary():
    """The a2a3sim binary the package runs.

    In order: the environment variable A2A3SIM (a path), the repo's
    build/a2a3sim next to this package (python/a2a3sim -> ../../build), an
    a2a3sim on PATH. BinaryNotFoundError when none is there.
    """
    env = os.environ.get("A2A3SIM")
    if env:
        if os.path.isfile(env) and os.access(env, os.X_OK):
            return env
        raise BinaryNotFoundError(f"A2A3SIM={env}: not an executable file")
    built = os.path.join(REPO_DIR, "build", "a2a3sim")
    if os.path.isfile(built) and os.access(built, os.X_OK):
        return built
    found = shutil.which("a2a3sim")
    if found:
        return found
    raise BinaryNotFoundError(
        f"no a2a3sim binary: not at {built} and not on PATH; build it "
        "(cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build) "
        "or set A2A3SIM=/path/to/a2a3sim"
    )


def repo_path(*parts):
    """A path inside the repository this package belongs to."""
    return os.path.join(REPO_DIR, *parts)


class Completed:
    """What a child run left: argv, exit status, stdout and stderr (text)."""

    def __init__(self, argv, returncode, stdout, stderr):
        self.argv = argv
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr


def _forward_pty(master, sink, chunks):
    """Copy the child's terminal stderr to ours (its progress bar) and keep it."""
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO: the child closed its side
            break
        if not data:
            break
        chunks.append(data)
        try:
            sink.write(data)
            sink.flush()
        except (OSError, ValueError):
            pass


def execute(args, tty_stderr=False, cwd=None):
    """Run `a2a3sim ARGS...` and return a Completed.

    tty_stderr: give the child a pseudo-terminal as stderr and copy it to
    ours, so that a command which draws a progress bar on a terminal (sweep)
    draws it; the text is kept as well, for error messages. Ctrl-C stops the
    child (it reaps its own children) and re-raises KeyboardInterrupt.
    """
    argv = [binary()] + [str(a) for a in args]
    master = None
    chunks = []
    pump = None
    if tty_stderr:
        import pty

        master, slave = pty.openpty()
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL, cwd=cwd)
        os.close(slave)
        sink = getattr(sys.stderr, "buffer", None) or sys.stderr
        pump = threading.Thread(target=_forward_pty, args=(master, sink, chunks), daemon=True)
        pump.start()
    else:
        proc = subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, cwd=cwd
        )
    try:
        out, err = proc.communicate()
    except BaseException:
        # Ctrl-C or any other interruption: stop the child and wait for it.
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        raise
    finally:
        if pump is not None:
            pump.join(timeout=5)
            os.close(master)
    if tty_stderr:
        err = b"".join(chunks).replace(b"\r\n", b"\n")
    return Completed(argv, proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))


def raise_for_exit(done, allowed=(0,)):
    """InputError for exit 2, InternalError for 3 or a signal; other codes pass."""
    rc = done.returncode
    if rc in allowed:
        return
    if rc == 2:
        raise InputError.from_stderr(done.stderr, done.argv)
    if rc < 0:
        raise InternalError(f"a2a3sim died of signal {-rc}: {done.stderr.strip()}", done.argv, done.stderr)
    if rc != 1:
        lines = [l for l in done.stderr.splitlines() if l.strip()]
        msg = lines[-1] if lines else f"exit status {rc}"
        raise InternalError(msg, done.argv, done.stderr)


def flag_args(flags):
    """Keyword arguments as command-line flags, in the order given.

    name_with_underscores=V -> --name-with-underscores V; True -> the bare
    flag; False or None -> nothing; a list or tuple -> the flag once per
    item; a dict -> the flag once per item as KEY=VALUE (slow_rank={3: 0.5}
    -> --slow-rank 3=0.5).
    """
    out = []
    for name, value in flags.items():
        flag = "--" + name.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            out.append(flag)
        elif isinstance(value, dict):
            for k, v in value.items():
                out += [flag, f"{k}={v}"]
        elif isinstance(value, (list, tuple)):
            for v in value:
                out += [flag, str(v)]
        else:
            out += [flag, str(value)]
    return out


def set_args(overrides, timing=None):
    """`set` (a dict KEY -> VALUE, or a list of "KEY=VALUE") as --set flags."""
    out = []
    if overrides:
        if isinstance(overrides, dict):
            items = [f"{k}={v}" for k, v in overrides.items()]
        elif isinstance(overrides, str):
            items = [overrides]
        else:
            items = [str(s) for s in overrides]
        for s in items:
            out += ["--set", s]
    if timing is not None:
        out += ["--set", f"interconnect.timing={timing}"]
    return out


def config_path(config):
    """A config argument: a path, or the name of a shipped config.

    "a2-cluster" or "a2-cluster.yaml" that is not a file here is looked up in
    the repo's configs/ folder.
    """
    if config is None:
        return None
    config = os.fspath(config)
    if os.path.exists(config):
        return config
    for name in (config, config + ".yaml"):
        cand = repo_path("configs", name)
        if os.sep not in config and os.path.isfile(cand):
            return cand
    return config  # the simulator names it in its error
