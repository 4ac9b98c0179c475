#!/usr/bin/env python3
"""A fused GEMM + all-reduce on cube and vector cores (pto-isa's gemm_ar design, small).

Every rank computes C_r = A_r x B_r on its cube cores, and its vector cores
all-reduce the tiles of C as they are finished:

  cube core b    computes tiles b, b + aic, ... (128 x 256 each, K in steps of
                 64: tload the panels into L1, textract them into L0A/L0B,
                 tmatmul into L0C), stores each to g (tstore_fixpipe, fp32 ->
                 fp16) and notifies tready[b]: the ready queue of vector core b
  vector core b  for each tile of cube core b, in order: waits tready[b], loads
                 the tile and adds it into its owner's window (remote_store
                 atomic_add; the owner is tile % P), notifies ready[tile] at the
                 owner; then, for each of its tiles this rank owns, waits
                 ready[tile] >= P and stores the sum to every peer

The queues are ordinary signals, so the race checker sees every store of a
tile happen before its load. The same program as
traces/examples/gemm_allreduce_fused.a2t, written in Python.

    python3 python/examples/gemm_allreduce_fused.py -d 0,1          # OK
    python3 python/examples/gemm_allreduce_fused.py -d 0,1,2,3 --card
    python3 python/examples/gemm_allreduce_fused.py -d 0,1 --no-ready-queue
                  # the vector cores do not wait for the cube cores: RACE
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import a2a3sim as sim  # noqa: E402
from tutorial_cli import main  # noqa: E402


def gemm_allreduce_fused(nranks, m=256, k=256, n=512, aic=2, ready_queue=True):
    """C = sum over ranks of A_r x B_r (M x K x N fp16, fp32 accumulate) on `aic` cube cores."""
    bm, bk, bn = 128, 64, 256  # output tile 128 x 256, K in steps of 64
    mt, nt, kt = m // bm, n // bn, k // bk
    nts = mt * nt  # output tiles
    te = bm * bn  # elements of a tile
    prog = sim.Program("gemm_allreduce_fused", nranks, cores=aic, cube_cores=aic)
    a = prog.tensor("a", sim.fp16, m * k, init="pattern")
    b = prog.tensor("b", sim.fp16, k * n, init="pattern")
    g = prog.tensor("g", sim.fp16, m * n)  # this rank's GEMM output
    red = prog.window("red", sim.fp16, m * n)  # the all-reduced output
    tready = prog.signal("tready", aic)  # per cube core: tiles stored in g
    ready = prog.signal("ready", nts)  # per tile, at its owner: ranks that have added it
    a1 = prog.tile("a1", sim.fp16, bm * k, space="l1")  # a tile's whole K panels
    b1 = prog.tile("b1", sim.fp16, k * bn, space="l1")
    a0 = prog.tile("a0", sim.fp16, bm * bk, space="l0a", count=2)  # ping / pong
    b0 = prog.tile("b0", sim.fp16, bk * bn, space="l0b", count=2)
    acc = prog.tile("acc", sim.fp32, te, space="l0c")
    t = prog.tile("t", sim.fp16, te)
    ag = prog.tile("ag", sim.fp16, te)
    prog.golden_gemm(a, b, red, m, k, n, block=(bm, bk, bn), kind="gemm_allreduce")

    def tiles_of(core):
        return range(core, nts, aic)

    @prog.instructions(cube="all")
    def cube(il):
        for tl in tiles_of(il.core):
            row, col = tl // nt, tl % nt
            il.tload(a1, a[row * kt * bm * bk : row * kt * bm * bk + bm * k])
            il.tload(b1, b[col * kt * bk * bn : col * kt * bk * bn + k * bn])
            for s in range(kt):
                il.textract(a0[s % 2], a1[s * bm * bk : (s + 1) * bm * bk])
                il.textract(b0[s % 2], b1[s * bk * bn : (s + 1) * bk * bn])
                il.tmatmul(acc, a0[s % 2], b0[s % 2], bm, bk, bn, acc=s > 0)
            il.tstore_fixpipe(acc, g[tl * te : (tl + 1) * te])
            il.notify(tready.at(il.rank)[il.core], value=1)

    @prog.instructions(core="all")
    def vector(il):
        for j, tl in enumerate(tiles_of(il.core)):  # reduce-scatter, tile by tile as ready
            if ready_queue:
                il.wait(tready[il.core], expected=j + 1)
            il.load(t, g[tl * te : (tl + 1) * te])
            il.remote_store(t, red.at(tl % il.nranks)[tl * te : (tl + 1) * te], atomic_add=True)
            il.notify(ready.at(tl % il.nranks)[tl], value=1)
        for tl in tiles_of(il.core):  # all-gather the tiles this rank owns
            if tl % il.nranks == il.rank:
                il.wait(ready[tl], expected=il.nranks)
                il.load(ag, red[tl * te : (tl + 1) * te])
                for q in range(1, il.nranks):
                    il.remote_store(ag, red.at((il.rank + q) % il.nranks)[tl * te : (tl + 1) * te])

    return prog


if __name__ == "__main__":
    sys.exit(
        main(
            gemm_allreduce_fused,
            __doc__,
            {"--no-ready-queue": ("ready_queue", "vector cores load tiles without waiting for them (a race)")},
            default_devices="0,1",
        )
    )
