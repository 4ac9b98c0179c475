"""Programs in Python: a builder that writes the program format.

A Program (what PyPTO calls a kernel) is written with the vocabulary of
PyPTO's distributed tutorial (tensors, windows, signals, tiles; load, store,
remote_load, remote_store, notify, wait, add; loops over peers; per-rank and
per-core instruction lists; the golden and the card) and becomes the text of
the program format (docs/program-format.md), which the simulator loads,
checks and runs: the format stays the one definition of a program, and the
simulator its one judge.

A Program is built for one rank count, as a PyPTO program whose rank count
comes from `-d`: the Python body of a block runs once per (rank, core), with
il.rank, il.nranks, il.core as plain integers, so Python's own `for` and
`if` are the loops over peers and the branches, and the text holds one
explicit block per (rank, core) with literal numbers, as `a2a3sim gen`
writes them.

Every line of the text remembers the Python file:line that made it. When the
simulator refuses the program at a line (a peer out of range, a region past
a buffer) the InputError names that Python line; race and deadlock reports
get the Python line beside each line of the program text.
"""

import linecache
import os
import re
import sys
from collections import namedtuple

from .errors import InputError

__all__ = ["Program", "InstrList", "NotifyOp", "WaitCmp", "fp32", "fp16", "int32"]

fp32 = "fp32"
fp16 = "fp16"
int32 = "int32"
_DTYPES = (fp32, fp16, int32)
_SPACES = ("ub", "l1", "l0a", "l0b", "l0c")


class NotifyOp:
    """How notify changes the peer's signal cell (pld.NotifyOp)."""

    AtomicAdd = "add"
    Set = "set"


class WaitCmp:
    """The condition wait blocks on (pld.WaitCmp)."""

    Ge = "ge"
    Eq = "eq"


# --- where an instruction was made ---------------------------------------------

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))
_in_pkg = {}


class Origin(namedtuple("Origin", "file line function")):
    """The Python place that made a line of the program."""

    def __str__(self):
        return f"{_short(self.file)}:{self.line}"

    @property
    def source(self):
        return linecache.getline(self.file, self.line).strip()


def _short(path):
    """PATH relative to the working directory when it is below it."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def _origin():
    f = sys._getframe(1)
    while f is not None:
        name = f.f_code.co_filename
        inside = _in_pkg.get(name)
        if inside is None:
            inside = _in_pkg[name] = os.path.dirname(os.path.abspath(name)) == _PKG_DIR
        if not inside:
            return Origin(name, f.f_lineno, f.f_code.co_name)
        f = f.f_back
    return Origin("<unknown>", 0, "")


def _count(shape):
    """Elements of a shape: an int, or a list/tuple of ints (their product)."""
    if isinstance(shape, int):
        return shape
    n = 1
    for d in shape:
        n *= int(d)
    return n


def _shape(shape):
    return (int(shape),) if isinstance(shape, int) else tuple(int(d) for d in shape)


def _flat(shape, offsets):
    """Row-major element offset of `offsets` in a buffer of `shape`."""
    if offsets is None:
        return 0
    if isinstance(offsets, int):
        return offsets
    offsets = list(offsets)
    if len(offsets) != len(shape):
        # a 1-D buffer addressed as the tutorial's [1, SIZE] row: leading 0s
        if len(shape) == 1 and all(o == 0 for o in offsets[:-1]):
            return int(offsets[-1])
        raise ValueError(f"offsets {offsets} do not match the shape {list(shape)}")
    off = 0
    for o, d in zip(offsets, shape):
        off = off * d + int(o)
    return off


# --- operands ------------------------------------------------------------------


class Buffer:
    """A tensor (private GM), window (symmetric, in every rank's HBM) or signal.

    buf[a:b] is the region of elements a..b-1 (a Python slice: start and
    stop); buf.at(peer)[a:b], or (buf @ peer)[a:b], the same region of a
    peer's window. A signal's cells are sig[i] (1-D) or sig[row, col] (2-D),
    and sig.at(peer)[row, col] a peer's.
    """

    def __init__(self, kind, name, dtype, shape):
        self.kind = kind
        self.name = name
        self.dtype = dtype
        self.shape = _shape(shape)
        self.n = _count(self.shape)

    def at(self, peer):
        return _Remote(self, peer)

    __matmul__ = at

    def __getitem__(self, key):
        return _index(self, None, key)

    def __len__(self):
        return self.n

    def __repr__(self):
        return f"<{self.kind} {self.name} {self.dtype}{list(self.shape)}>"


class _Remote:
    def __init__(self, buffer, peer):
        self.buffer = buffer
        self.peer = int(peer)

    def __getitem__(self, key):
        return _index(self.buffer, self.peer, key)


def _index(buffer, peer, key):
    if buffer.kind == "signal":
        return Cell(buffer, peer, key if isinstance(key, tuple) else (key,))
    if isinstance(key, slice):
        if key.step not in (None, 1):
            raise ValueError(f"{buffer.name}[{key}]: regions are contiguous (no step)")
        start = 0 if key.start is None else int(key.start)
        stop = buffer.n if key.stop is None else int(key.stop)
        return Region(buffer, peer, start, stop - start)
    return Region(buffer, peer, int(key), 1)


class Region:
    """Elements start .. start+length-1 of a buffer (of a peer's, when peer is set)."""

    def __init__(self, buffer, peer, start, length):
        self.buffer = buffer
        self.peer = peer
        self.start = start
        self.length = length

    def text(self, with_length=True):
        at = "" if self.peer is None else f"@{self.peer}"
        span = f"{self.start}:{self.length}" if with_length else f"{self.start}"
        return f"{self.buffer.name}{at}[{span}]"


class Cell:
    """A signal cell: sig[i], sig[row, col], or a peer's, sig.at(peer)[row, col]."""

    def __init__(self, signal, peer, index):
        self.signal = signal
        self.peer = peer
        self.index = tuple(int(i) for i in index)

    def text(self):
        at = "" if self.peer is None else f"@{self.peer}"
        return f"{self.signal.name}{at}[{', '.join(str(i) for i in self.index)}]"


class Tile:
    """A tile of every core (in the UB, or a cube core's l1, l0a, l0b, l0c).

    tile[a:b] names elements a..b-1 of it (textract's source).
    """

    def __init__(self, name, dtype, shape, space):
        self.name = name
        self.dtype = dtype
        self.shape = _shape(shape)
        self.n = _count(self.shape)
        self.space = space

    def text(self):
        return self.name

    def __getitem__(self, key):
        if not isinstance(key, slice) or key.step not in (None, 1):
            raise ValueError(f"{self.name}[...]: a tile takes a slice start:stop")
        start = 0 if key.start is None else int(key.start)
        stop = self.n if key.stop is None else int(key.stop)
        return _TileSlice(self, start, stop - start)

    def __repr__(self):
        return f"<tile {self.text()} {self.dtype}[{self.n}] in {self.space}>"


class _TileSlice:
    def __init__(self, tile, start, length):
        self.tile = tile
        self.start = start
        self.length = length

    def text(self):
        return f"{self.tile.text()}[{self.start}:{self.length}]"


class _ArrayTile(Tile):
    def __init__(self, array, index):
        super().__init__(array.name, array.dtype, array.shape, array.space)
        self.index = index

    def text(self):
        return f"{self.name}[{self.index}]"


class TileArray:
    """COUNT tiles of one type and size: arr[i] is one of them (double buffering)."""

    def __init__(self, name, dtype, shape, space, count):
        self.name = name
        self.dtype = dtype
        self.shape = _shape(shape)
        self.n = _count(self.shape)
        self.space = space
        self.count = count

    def __getitem__(self, i):
        return _ArrayTile(self, int(i))

    def __len__(self):
        return self.count


def _tile_text(t):
    if isinstance(t, (Tile, _TileSlice)):
        return t.text()
    raise TypeError(f"expected a tile, got {t!r}")


# --- per-rank programs -----------------------------------------------------------


class InstrList:
    """The instruction list of one (rank, core): the `il` a block's body receives.

    il.rank, il.nranks, il.core, il.ncores (vector cores), il.cube (True on a
    cube core) are integers; il.range is Python's range (PyPTO's pl.range).
    Instructions are appended in call order; each remembers its Python line.
    """

    range = staticmethod(range)

    def __init__(self, program, rank, core, cube):
        self.program = program
        self.rank = rank
        self.nranks = program.nranks
        self.core = core
        self.ncores = program.cores
        self.cube = cube
        self.lines = []

    def _emit(self, text):
        self.lines.append((text, _origin()))

    # regions ------------------------------------------------------------------
    def _region(self, ref, peer=None, offsets=None, shape=None, default_length=None):
        if isinstance(ref, Region):
            if peer is not None:
                return Region(ref.buffer, int(peer), ref.start, ref.length)
            return ref
        if not isinstance(ref, Buffer) or ref.kind == "signal":
            raise TypeError(f"expected a tensor or window (or a region of one), got {ref!r}")
        start = _flat(ref.shape, offsets)
        length = _count(shape) if shape is not None else default_length
        if length is None:
            length = ref.n - start
        return Region(ref, None if peer is None else int(peer), start, length)

    def _cell(self, sig, peer=None, offsets=None):
        if isinstance(sig, Cell):
            if peer is not None:
                return Cell(sig.signal, int(peer), sig.index)
            return sig
        if not isinstance(sig, Buffer) or sig.kind != "signal":
            raise TypeError(f"expected a signal (or a cell of one), got {sig!r}")
        if offsets is None:
            offsets = [0] * len(sig.shape)
        if isinstance(offsets, int):
            offsets = [offsets]
        return Cell(sig, None if peer is None else int(peer), offsets)

    # data movement ------------------------------------------------------------
    def load(self, tile, src, offsets=None, shape=None):
        """tile <- a local tensor/window region (pl.load). src: buf[a:b], or buf with offsets/shape."""
        r = self._region(src, None, offsets, shape, getattr(tile, "n", None))
        self._emit(f"load {_tile_text(tile)}, {r.text()}")
        return tile

    def store(self, tile, dst, offsets=None, shape=None):
        """A local tensor/window region <- tile (pl.store)."""
        r = self._region(dst, None, offsets, shape, getattr(tile, "n", None))
        self._emit(f"store {_tile_text(tile)}, {r.text()}")
        return dst

    def remote_load(self, tile, src, peer=None, offsets=None, shape=None):
        """tile <- a peer's window region (pld.tile.remote_load): src is win.at(peer)[a:b], or win with peer=."""
        r = self._region(src, peer, offsets, shape, getattr(tile, "n", None))
        self._emit(f"remote_load {_tile_text(tile)}, {r.text()}")
        return tile

    def remote_store(self, tile, dst, peer=None, offsets=None, shape=None, atomic_add=False):
        """A peer's window region <- tile (or += tile with atomic_add=True)."""
        r = self._region(dst, peer, offsets, shape, getattr(tile, "n", None))
        self._emit(f"remote_store {_tile_text(tile)}, {r.text()}" + (" atomic_add" if atomic_add else ""))

    def _dma_options(self, atomic_add=False, queue=None, chunk=None, pipeline=False):
        opts = ""
        if atomic_add:
            opts += " atomic_add"
        if queue is not None:
            opts += f" queue {int(queue)}"
        if chunk is not None:
            opts += f" chunk {int(chunk)}" + (" pipeline" if pipeline else "")
        elif pipeline:
            raise ValueError("pipeline goes with chunk=")
        return opts

    def put(self, dst, src, atomic_add=False, queue=None, chunk=None, pipeline=False):
        """DMA: a peer's window region <- a local region of the same length (dst: win.at(peer)[a:b])."""
        d = self._region(dst)
        s = self._region(src)
        self._emit(f"put {d.text()}, {s.text(False)}" + self._dma_options(atomic_add, queue, chunk, pipeline))

    def get(self, dst, src, queue=None, chunk=None, pipeline=False):
        """DMA: a local region <- a peer's window region (src: win.at(peer)[a:])."""
        d = self._region(dst)
        s = self._region(src)
        self._emit(f"get {d.text()}, {s.text(False)}" + self._dma_options(False, queue, chunk, pipeline))

    # signals ------------------------------------------------------------------
    def notify(self, signal, peer=None, offsets=None, value=1, op=NotifyOp.AtomicAdd):
        """Add to (op="add", NotifyOp.AtomicAdd) or set (op="set") a peer's signal cell.

        signal.at(peer)[row, col], or the tutorial's form:
        notify(signal, peer=peer, offsets=[my_rank, 0], value=1, op=NotifyOp.AtomicAdd)
        """
        op = {"add": "add", "atomicadd": "add", "atomic_add": "add", "set": "set"}.get(str(op).lower())
        if op is None:
            raise ValueError("notify: op is 'add' (NotifyOp.AtomicAdd) or 'set' (NotifyOp.Set)")
        c = self._cell(signal, peer, offsets)
        if c.peer is None:
            c = Cell(c.signal, self.rank, c.index)
        self._emit(f"notify {c.text()} {op} {int(value)}")

    def wait(self, signal, offsets=None, expected=1, cmp=WaitCmp.Ge):
        """Block until the local signal cell is >= (cmp="ge") or == (cmp="eq") expected."""
        cmp = str(cmp).lower()
        if cmp not in ("ge", "eq"):
            raise ValueError("wait: cmp is 'ge' (WaitCmp.Ge) or 'eq' (WaitCmp.Eq)")
        c = self._cell(signal, None, offsets)
        if c.peer is not None:
            raise ValueError("wait: a core waits on its own signal cells (no peer)")
        self._emit(f"wait {c.text()} {cmp} {int(expected)}")

    # vector ---------------------------------------------------------------------
    def _vector(self, op, dst, a, b, n):
        n = dst.n if n is None else int(n)
        self._emit(f"{op} {_tile_text(dst)}, {_tile_text(a)}, {_tile_text(b)}, {n}")
        return dst

    def add(self, dst, a, b, n=None):
        """dst = a + b element-wise, n elements (default: dst's size) (pl.add)."""
        return self._vector("vadd", dst, a, b, n)

    def max(self, dst, a, b, n=None):
        return self._vector("vmax", dst, a, b, n)

    def min(self, dst, a, b, n=None):
        return self._vector("vmin", dst, a, b, n)

    def mul(self, dst, a, b, n=None):
        return self._vector("vmul", dst, a, b, n)

    def compute(self, cycles):
        """An opaque delay of `cycles` on the vector pipe."""
        self._emit(f"compute {int(cycles)}")

    # cube -----------------------------------------------------------------------
    def tload(self, l1, src, offsets=None, shape=None):
        """L1 tile <- a local tensor/window region (MTE2)."""
        r = self._region(src, None, offsets, shape, getattr(l1, "n", None))
        self._emit(f"tload {_tile_text(l1)}, {r.text()}")

    def textract(self, l0, src):
        """L0A/L0B tile <- elements of an L1 tile: textract(a0, a1[s:s + n])."""
        if isinstance(src, Tile):
            src = src[0 : l0.n]
        self._emit(f"textract {_tile_text(l0)}, {_tile_text(src)}")

    def tmatmul(self, c, a, b, m, k, n, acc=False):
        """C (L0C, fp32, m x n) = (or += with acc=True) A (L0A, m x k) x B (L0B, k x n)."""
        self._emit(
            f"tmatmul {_tile_text(c)}, {_tile_text(a)}, {_tile_text(b)}, {int(m)}, {int(k)}, {int(n)}"
            + (" acc" if acc else "")
        )

    def tstore_fixpipe(self, c, dst, offsets=None, shape=None):
        """A local region <- the first elements of L0C tile C, cast to the region's type (FixPipe)."""
        r = self._region(dst, None, offsets, shape, getattr(c, "n", None))
        self._emit(f"tstore_fixpipe {_tile_text(c)}, {r.text()}")


# --- the program ---------------------------------------------------------------------


_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class Program:
    """A program for `nranks` ranks, built in Python, run by the simulator.

        prog = a2a3sim.Program("allreduce_mesh", nranks=4)
        x = prog.tensor("x", a2a3sim.fp32, [1, 64], init="pattern")
        ...
        @prog.instructions()         # every rank, core 0
        def body(il):
            il.load(acc, x[0:64])
            ...
        result = prog.run()          # a2a3sim.run(program=prog)

    cores: vector cores per rank; cube_cores: cube cores per rank; seed: the
    seed of the `pattern` data. prog.text() is the program text,
    prog.write(path) writes it (runnable with `a2a3sim run --program PATH`).
    """

    def __init__(self, name="program", nranks=None, cores=1, cube_cores=0, seed=None):
        if nranks is None or int(nranks) < 1:
            raise ValueError("Program: nranks (the rank count it is built for) must be 1 or more")
        self.name = re.sub(r"[^A-Za-z0-9_.-]", "_", str(name)) or "program"
        self.nranks = int(nranks)
        self.cores = int(cores)
        self.cube_cores = int(cube_cores)
        self.seed = seed
        self._origin = _origin()
        self._decls = []  # (text, origin)
        self._blocks = []  # (header, [(text, origin)])
        self._names = {}

    # declarations ------------------------------------------------------------------
    def _declare(self, kind, name, text):
        if not _NAME.match(name):
            raise ValueError(f"{kind} name {name!r}: expected letters, digits and _ (not starting with a digit)")
        space = "tile" if kind == "tile" else "buffer"
        if (space, name) in self._names:
            raise ValueError(f"{kind} {name!r}: the name is already declared")
        self._names[(space, name)] = kind
        self._decls.append((text, _origin()))

    @staticmethod
    def _dtype(dtype):
        if dtype not in _DTYPES:
            raise ValueError(f"dtype {dtype!r}: expected one of {', '.join(_DTYPES)}")
        return dtype

    def tensor(self, name, dtype, shape, init=None):
        """Private GM of every rank; init="pattern" fills it with the deterministic input."""
        b = Buffer("tensor", name, self._dtype(dtype), shape)
        if init not in (None, "pattern", "zero"):
            raise ValueError("tensor: init is 'pattern', 'zero' or None")
        self._declare("tensor", name, f"tensor {name} {dtype}[{b.n}]" + (f" = {init}" if init else ""))
        return b

    def window(self, name, dtype, shape):
        """A symmetric window: the same buffer in every rank's HBM, readable by peers."""
        b = Buffer("window", name, self._dtype(dtype), shape)
        self._declare("window", name, f"window {name} {dtype}[{b.n}]")
        return b

    def signal(self, name, shape):
        """int32 signal cells, zero-initialised: signal("sig", P) or signal("sig", [rows, cols])."""
        b = Buffer("signal", name, int32, shape)
        if len(b.shape) > 2:
            raise ValueError("signal: one or two dimensions")
        self._declare("signal", name, f"signal {name}[{', '.join(str(d) for d in b.shape)}]")
        return b

    def tile(self, name, dtype, shape, space="ub", count=None):
        """A tile of every core (space "ub", or a cube core's "l1", "l0a", "l0b", "l0c");
        count=N declares N of them (a TileArray: t[i])."""
        if space not in _SPACES:
            raise ValueError(f"tile space {space!r}: expected one of {', '.join(_SPACES)}")
        where = "" if space == "ub" else f" in {space}"
        n = _count(_shape(shape))
        if count is None:
            t = Tile(name, self._dtype(dtype), shape, space)
            self._declare("tile", name, f"tile {name} {dtype}[{n}]{where}")
        else:
            t = TileArray(name, self._dtype(dtype), shape, space, int(count))
            self._declare("tile", name, f"tile {name}[{int(count)}] {dtype}[{n}]{where}")
        return t

    _GOLDEN_OP = ("allreduce", "reduce_scatter", "bcast_allreduce_allgather", "reduce")
    _GOLDEN_ROOT = ("broadcast", "bcast_allreduce_allgather", "reduce", "gather", "scatter")

    def golden(self, kind, src=None, dst=None, n=None, op="sum", root=0):
        """What the output must be: golden("allreduce", x, y, 64, op="sum"); kinds as
        docs/program-format.md (allreduce, broadcast, allgather, reduce_scatter,
        all_to_all, bcast_allreduce_allgather, reduce, gather, scatter, none);
        n is the block's elements."""
        if kind == "none":
            self._decls.append(("golden none", _origin()))
            return
        words = ["golden", kind]
        if kind in self._GOLDEN_OP:
            words.append(str(op))
        if kind in self._GOLDEN_ROOT:
            words.append(str(int(root)))
        words += [src.name, "->", dst.name, str(int(n))]
        self._decls.append((" ".join(words), _origin()))

    def golden_gemm(self, a, b, c, m, k, n, block, kind="gemm"):
        """C = A x B (kind "gemm"), summed over ranks ("gemm_allreduce") or with A
        gathered ("allgather_gemm"); block=(BM, BK, BN), the tile-blocked layout."""
        bm, bk, bn = (int(v) for v in block)
        self._decls.append(
            (f"golden {kind} {a.name} {b.name} -> {c.name} {int(m)} {int(k)} {int(n)} block {bm} {bk} {bn}", _origin())
        )

    def card(self, remote_read, remote_write, rounds):
        """The author's analytic card (bytes per rank, barrier rounds), reported beside the measured one."""
        self._decls.append(
            (f"card remote_read {int(remote_read)} remote_write {int(remote_write)} rounds {int(rounds)}", _origin())
        )

    # programs -----------------------------------------------------------------------
    @staticmethod
    def _which(sel, count, what):
        if sel is None:
            return range(count)
        if sel == "all":
            return range(count)
        if isinstance(sel, int):
            return [sel]
        return [int(s) for s in sel]

    def instructions(self, rank=None, core=None, cube=None):
        """Decorator: run the body once per (rank, core) it selects, writing
        that core's instruction list (a `program rank R core C` block).

        rank: None (every rank), an int or a list; core: 0 by default, an
        int, a list or "all"; cube: "all", an int or a list for the cube
        cores' lists. The body gets an InstrList `il`. Bodies append: a
        second body for rank 0 adds after the first's instructions.
        """
        if cube is not None and core is not None:
            raise ValueError("instructions: core= or cube=, not both")

        def apply(fn):
            ranks = self._which(rank, self.nranks, "rank")
            if cube is not None:
                cores, is_cube = self._which(cube, self.cube_cores, "cube"), True
            else:
                cores, is_cube = self._which(0 if core is None else core, self.cores, "core"), False
            for r in ranks:
                for c in cores:
                    il = InstrList(self, r, c, is_cube)
                    fn(il)
                    if il.lines:
                        head = f"program rank {r} {'cube' if is_cube else 'core'} {c}"
                        self._blocks.append((head, _origin_of(fn), il.lines))
            return fn

        return apply

    # text -----------------------------------------------------------------------------
    def lines(self):
        """The program as (text, Origin) pairs, one per line of prog.text()."""
        out = [(f"# {self.name}: written by the a2a3sim Python package (docs/python.md)", self._origin)]
        out.append((f"ranks {self.nranks}", self._origin))
        out.append((f"cores {self.cores}", self._origin))
        if self.cube_cores:
            out.append((f"cube_cores {self.cube_cores}", self._origin))
        if self.seed is not None:
            out.append((f"seed {int(self.seed)}", self._origin))
        out += self._decls
        for head, origin, body in self._blocks:
            out.append(("", origin))
            out.append((head, origin))
            out += [("  " + t, o) for t, o in body]
            out.append(("end", origin))
        return out

    def text(self):
        """The program in the text format (docs/program-format.md)."""
        return "".join(t + "\n" for t, _ in self.lines())

    def write(self, path):
        """Write the program text to PATH and return PATH."""
        path = os.fspath(path)
        with open(path, "w") as f:
            f.write(self.text())
        return path

    def run(self, **kw):
        """a2a3sim.run(program=self, **kw): ranks default to nranks."""
        from .run import run

        return run(program=self, **kw)

    # errors ---------------------------------------------------------------------------
    def origin(self, line):
        """The Origin of line LINE (1-based) of prog.text(), or None."""
        lines = self.lines()
        if 1 <= line <= len(lines):
            return lines[line - 1][1]
        return None

    def locate(self, err, path):
        """The simulator's InputError about the written program, at the Python line."""
        if err.file is None or os.path.abspath(err.file) != os.path.abspath(path):
            return err
        lines = self.lines()
        if err.line is not None and 1 <= err.line <= len(lines):
            text, origin = lines[err.line - 1]
        else:
            text, origin = None, self._origin
        msg = f"{origin}: error: {err.what}"
        if origin.source:
            msg += f"\n    {origin.source}"
        if text is not None:
            where = f"{err.line}:{err.col}" if err.col else f"{err.line}"
            msg += f"\n  (line {where} of the program text of {self.name}: '{text.strip()}')"
        new = InputError(
            msg,
            err.command,
            err.stderr.replace(path, f"{self.name}.a2t"),
            file=origin.file,
            line=origin.line,
            col=None,
            flag=err.flag,
            what=err.what,
        )
        new.program_line = err.line
        new.program_col = err.col
        new.program_text = text
        return new

    def annotate(self, stderr, path):
        """Reports on stderr with the Python line beside each program line."""
        lines = self.lines()

        def at(m):
            n = int(m.group(1))
            tail = m.group(2) or ""
            if 1 <= n <= len(lines):
                return f"line {n}{tail} at {lines[n - 1][1]}"
            return m.group(0)

        text = stderr.replace(path, f"{self.name}.a2t")
        return re.sub(r"\bline (\d+)( \([^)]*\))?", at, text)


def _origin_of(fn):
    code = getattr(fn, "__code__", None)
    if code is None:
        return _origin()
    return Origin(code.co_filename, code.co_firstlineno, code.co_name)
