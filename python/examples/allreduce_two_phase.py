#!/usr/bin/env python3
"""All-reduce, two-phase: reduce-scatter, then all-gather (PyPTO tutorial step 09).

The same result as the mesh with about half the remote traffic: the slice is
cut into P chunks of SIZE / P; rank r reduces chunk r of every peer into its
`result` window (reduce-scatter), then every rank reads chunk c from rank c
(all-gather). Two barriers, each on its own row of a [2, P] signal.
Cost card per rank: 2 (P-1)/P x SIZE x 4 bytes read remotely, two barriers.
SIZE must be divisible by P (the chunk is a tile shape: P = 1, 2, 4, 8, ...).

    python3 python/examples/allreduce_two_phase.py -d 0,1,2,3     # OK
    python3 python/examples/allreduce_two_phase.py -d 0,1         # OK
    python3 python/examples/allreduce_two_phase.py -d 0,1,2,3 --one-signal-row
                  # the tutorial's pitfall: both barriers on row 0, RACE
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import a2a3sim as sim  # noqa: E402
from a2a3sim import NotifyOp, WaitCmp  # noqa: E402
from tutorial_cli import main  # noqa: E402

SIZE = 64  # fp32 elements of each rank's slice: [1, SIZE]


def allreduce_two_phase(nranks, barrier=True, separate_rows=True):
    """The two-phase all-reduce for `nranks` ranks (a factory: the chunk is a tile shape).

    barrier=False leaves out both barriers; separate_rows=False puts both on
    signal row 0, whose counters barrier A has already satisfied.
    """
    if SIZE % nranks:
        raise ValueError(f"{SIZE} elements do not cut into {nranks} equal chunks: run on 1, 2, 4, 8, ... ranks")
    chunk = SIZE // nranks
    prog = sim.Program("allreduce_two_phase", nranks)
    x = prog.tensor("x", sim.fp32, [1, SIZE], init="pattern")
    y = prog.tensor("y", sim.fp32, [1, SIZE])
    data = prog.window("data", sim.fp32, [1, SIZE])  # the staged input
    result = prog.window("result", sim.fp32, [1, SIZE])  # chunk r, reduced, at rank r
    signal = prog.signal("signal", [2, nranks])  # one row per barrier
    local = prog.tile("local", sim.fp32, [1, SIZE])
    acc = prog.tile("acc", sim.fp32, [1, chunk])
    recv = prog.tile("recv", sim.fp32, [1, chunk])
    prog.golden("allreduce", x, y, SIZE, op="sum")
    prog.card(remote_read=2 * (nranks - 1) * chunk * 4, remote_write=0, rounds=2)

    def barrier_on(il, row):
        for peer in il.range(il.nranks):
            if peer != il.rank:
                il.notify(signal, peer=peer, offsets=[row, il.rank], value=1, op=NotifyOp.AtomicAdd)
        for src in il.range(il.nranks):
            if src != il.rank:
                il.wait(signal, offsets=[row, src], expected=1, cmp=WaitCmp.Ge)

    @prog.instructions()
    def two_phase(il):
        my_rank, nranks = il.rank, il.nranks

        # Phase 1: put this rank's slice into its own window slot.
        il.load(local, x, offsets=[0, 0], shape=[1, SIZE])
        il.store(local, data, offsets=[0, 0])

        # Barrier A (signal row 0): every input is staged before the RS reads.
        if barrier:
            barrier_on(il, 0)

        # Phase 2: reduce-scatter: rank r owns chunk r of the result.
        il.load(acc, data, offsets=[0, my_rank * chunk], shape=[1, chunk])
        for peer in il.range(nranks):
            if peer != my_rank:
                il.remote_load(recv, data, peer=peer, offsets=[0, my_rank * chunk], shape=[1, chunk])
                il.add(acc, acc, recv)
        il.store(acc, result, offsets=[0, my_rank * chunk])

        # Barrier B (signal row 1): every reduced chunk is stored before the AG reads.
        if barrier:
            barrier_on(il, 1 if separate_rows else 0)

        # Phase 3: all-gather: chunk c from rank c (itself included: a local read).
        for c in il.range(nranks):
            il.remote_load(recv, result, peer=c, offsets=[0, c * chunk], shape=[1, chunk])
            il.store(recv, y, offsets=[0, c * chunk])

    return prog


if __name__ == "__main__":
    sys.exit(
        main(
            allreduce_two_phase,
            __doc__,
            {
                "--no-barrier": ("barrier", "leave out both barriers (a race)"),
                "--one-signal-row": ("separate_rows", "both barriers on signal row 0 (a race)"),
            },
        )
    )
