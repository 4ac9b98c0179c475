"""The command line the tutorial's examples share: `-p a2a3sim -d 0,1,2,3`, prints OK.

main(build, doc, pitfalls) runs the program build(nranks, **options) on the
devices of -d and prints its status: OK (exit 0), or RACE / FAIL / DEADLOCK
with the simulator's report on stderr, each program line beside the Python
line that made it (exit 1). pitfalls: {"--flag": (option, help)}, each flag
passing option=False to build (the tutorial's pitfalls, on purpose).
"""

import argparse
import sys

import a2a3sim as sim


def main(build, doc, pitfalls=None, default_devices="0,1,2,3", argv=None):
    ap = argparse.ArgumentParser(description=doc.splitlines()[0] if doc else None)
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3sim"], help="only a2a3sim")
    ap.add_argument("-d", "--devices", default=default_devices, help=f"NPUs to run on (default {default_devices})")
    for flag, (option, text) in (pitfalls or {}).items():
        ap.add_argument(flag, dest=option, action="store_false", help=text)
    ap.add_argument("--config", help="a config file, or a shipped config's name (a2-cluster)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a config override")
    ap.add_argument("--card", action="store_true", help="also print the time and the cost card")
    ap.add_argument("--timeline", metavar="FILE", help="write the run's Perfetto timeline")
    ap.add_argument("--write", metavar="FILE", help="write the program text")
    args = ap.parse_args(argv)
    devices = [int(d) for d in args.devices.split(",") if d.strip() != ""]
    options = {option: getattr(args, option) for option, _ in (pitfalls or {}).values()}
    try:
        prog = build(len(devices), **options)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.write:
        prog.write(args.write)
    try:
        r = prog.run(devices=devices, config=args.config, set=args.set)
    except sim.SimulationError as e:
        print(e.status)  # RACE, FAIL, DEADLOCK, ...
        print(e.report, file=sys.stderr)
        return 1
    except sim.InputError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print("OK")
    if args.card:
        bw = f"   algbw {r.algbw:.3f} GB/s   busbw {r.busbw:.3f} GB/s" if r.algbw is not None else ""
        print(f"time {r.time_us:.3f} us{bw}")
        print(r.card.to_string())
        if r.overlap:
            print("overlap:", ", ".join(f"{k} {v}" for k, v in r.overlap.items()))
    if args.timeline:
        r.timeline(args.timeline)
    return 0
