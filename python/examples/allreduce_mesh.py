#!/usr/bin/env python3
"""All-reduce, mesh: every rank reads every peer (PyPTO tutorial step 08).

P ranks each hold a slice of SIZE fp32; afterwards every rank holds the
element-wise sum of all slices. Four phases per rank: stage-in (x into this
rank's window), a barrier (notify every peer, wait for every peer),
accumulate (start from the own slice, add every peer's), stage-out.
Cost card per rank: (P-1) x SIZE x 4 bytes read remotely, one barrier.

    python3 python/examples/allreduce_mesh.py -d 0,1,2,3      # OK
    python3 python/examples/allreduce_mesh.py -d 0,1          # OK
    python3 python/examples/allreduce_mesh.py -d 0,1,2,3 --no-barrier
                       # the tutorial's first pitfall: RACE, at the Python lines

The program is written with a2a3sim's builder (docs/python.md) and runs on
the simulator; -p a2a3sim is accepted for the tutorial's command line.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import a2a3sim as sim  # noqa: E402
from a2a3sim import NotifyOp, WaitCmp  # noqa: E402
from tutorial_cli import main  # noqa: E402

SIZE = 64  # fp32 elements of each rank's slice: [1, SIZE]


def allreduce_mesh(nranks, barrier=True):
    """The mesh all-reduce for `nranks` ranks (barrier=False: without phase 2)."""
    prog = sim.Program("allreduce_mesh", nranks)
    x = prog.tensor("x", sim.fp32, [1, SIZE], init="pattern")  # each rank's input
    y = prog.tensor("y", sim.fp32, [1, SIZE])  # each rank's result
    data = prog.window("data", sim.fp32, [1, SIZE])  # the staged input, read by peers
    signal = prog.signal("signal", [nranks, 1])  # each rank owns one row in every peer's
    acc = prog.tile("acc", sim.fp32, [1, SIZE])
    recv = prog.tile("recv", sim.fp32, [1, SIZE])
    prog.golden("allreduce", x, y, SIZE, op="sum")
    prog.card(remote_read=(nranks - 1) * SIZE * 4, remote_write=0, rounds=1)

    @prog.instructions()  # every rank, core 0
    def mesh(il):
        my_rank, nranks = il.rank, il.nranks

        # Phase 1: put this rank's slice into its own window slot.
        il.load(acc, x, offsets=[0, 0], shape=[1, SIZE])
        il.store(acc, data, offsets=[0, 0])

        # Phase 2: barrier: notify every peer, wait for every peer's slot.
        if barrier:
            for peer in il.range(nranks):
                if peer != my_rank:
                    il.notify(signal, peer=peer, offsets=[my_rank, 0], value=1, op=NotifyOp.AtomicAdd)
            for src in il.range(nranks):
                if src != my_rank:
                    il.wait(signal, offsets=[src, 0], expected=1, cmp=WaitCmp.Ge)

        # Phase 3: accumulate: start from the own slice, add every peer's.
        il.load(acc, data, offsets=[0, 0], shape=[1, SIZE])
        for peer in il.range(nranks):
            if peer != my_rank:
                il.remote_load(recv, data, peer=peer, offsets=[0, 0], shape=[1, SIZE])
                il.add(acc, acc, recv)

        # Phase 4: stage-out: the sum is this rank's output.
        il.store(acc, y, offsets=[0, 0])

    return prog


if __name__ == "__main__":
    sys.exit(main(allreduce_mesh, __doc__, {"--no-barrier": ("barrier", "leave out phase 2 (a race)")}))
