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
tile happen before its load. The same kernel as
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
    ker = sim.Kernel("gemm_allreduce_fused", nranks, cores=aic, cube_cores=aic)
    a = ker.tensor("a", sim.fp16, m * k, init="pattern")
    b = ker.tensor("b", sim.fp16, k * n, init="pattern")
    g = ker.tensor("g", sim.fp16, m * n)  # this rank's GEMM output
    red = ker.window("red", sim.fp16, m * n)  # the all-reduced output
    tready = ker.signal("tready", aic)  # per cube core: tiles stored in g
    ready = ker.signal("ready", nts)  # per tile, at its owner: ranks that have added it
    a1 = ker.tile("a1", sim.fp16, bm * k, space="l1")  # a tile's whole K panels
    b1 = ker.tile("b1", sim.fp16, k * bn, space="l1")
    a0 = ker.tile("a0", sim.fp16, bm * bk, space="l0a", count=2)  # ping / pong
    b0 = ker.tile("b0", sim.fp16, bk * bn, space="l0b", count=2)
    acc = ker.tile("acc", sim.fp32, te, space="l0c")
    t = ker.tile("t", sim.fp16, te)
    ag = ker.tile("ag", sim.fp16, te)
    ker.golden_gemm(a, b, red, m, k, n, block=(bm, bk, bn), kind="gemm_allreduce")

    def tiles_of(core):
        return range(core, nts, aic)

    @ker.program(cube="all")
    def cube(p):
        for tl in tiles_of(p.core):
            row, col = tl // nt, tl % nt
            p.tload(a1, a[row * kt * bm * bk : row * kt * bm * bk + bm * k])
            p.tload(b1, b[col * kt * bk * bn : col * kt * bk * bn + k * bn])
            for s in range(kt):
                p.textract(a0[s % 2], a1[s * bm * bk : (s + 1) * bm * bk])
                p.textract(b0[s % 2], b1[s * bk * bn : (s + 1) * bk * bn])
                p.tmatmul(acc, a0[s % 2], b0[s % 2], bm, bk, bn, acc=s > 0)
            p.tstore_fixpipe(acc, g[tl * te : (tl + 1) * te])
            p.notify(tready.at(p.rank)[p.core], value=1)

    @ker.program(core="all")
    def vector(p):
        for j, tl in enumerate(tiles_of(p.core)):  # reduce-scatter, tile by tile as ready
            if ready_queue:
                p.wait(tready[p.core], expected=j + 1)
            p.load(t, g[tl * te : (tl + 1) * te])
            p.remote_store(t, red.at(tl % p.nranks)[tl * te : (tl + 1) * te], atomic_add=True)
            p.notify(ready.at(tl % p.nranks)[tl], value=1)
        for tl in tiles_of(p.core):  # all-gather the tiles this rank owns
            if tl % p.nranks == p.rank:
                p.wait(ready[tl], expected=p.nranks)
                p.load(ag, red[tl * te : (tl + 1) * te])
                for q in range(1, p.nranks):
                    p.remote_store(ag, red.at((p.rank + q) % p.nranks)[tl * te : (tl + 1) * te])

    return ker


if __name__ == "__main__":
    sys.exit(
        main(
            gemm_allreduce_fused,
            __doc__,
            {"--no-ready-queue": ("ready_queue", "vector cores load tiles without waiting for them (a race)")},
            default_devices="0,1",
        )
    )
