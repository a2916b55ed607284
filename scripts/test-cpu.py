#!/usr/bin/env python3
"""CPU time per test, over a test run: which tests (with the browsers, Node runners and proxies
they start) use the machine's cores.

    python3 scripts/test-cpu.py OUT [--kinds] &     # then run the tests; kill -TERM the sampler
    cargo nextest run --all-features
    kill -TERM %1                                  # writes OUT: CPU seconds, most first

Every second it reads each process's CPU time from /proc and charges what it used since the
last reading to the test it belongs to: the nearest ancestor that is a test process of a
nextest run (`<binary> --exact <test> --nocapture`; under `cargo test`, the binary), or else
to its own command name (`other:<comm>`). With --kinds, each test's time is split by the kind
of process (Chromium's browser, renderer or GPU process by its --type, node and its script,
or the command name). A process that lives less than a second is missed; the first reading
charges every process its whole CPU time (the kernel's and the machine's own processes show up
as `other:`). docs/performance.md has what it measured.
"""
import os
import signal
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")


def read_cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return []


def snapshot():
    """pid -> (ppid, CPU ticks, comm) for every process now."""
    procs = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                s = f.read()
        except OSError:
            continue
        end = s.rindex(")")
        fields = s[end + 2:].split()
        procs[int(d)] = (int(fields[1]), int(fields[11]) + int(fields[12]), s[s.index("(") + 1:end])
    return procs


def test_name(args):
    """The test a test binary's process runs, or None when `args` is no test binary."""
    if not args or "/deps/" not in args[0]:
        return None
    binary = os.path.basename(args[0]).rsplit("-", 1)[0]
    rest = [a for a in args[1:] if not a.startswith("-")]
    return f"{binary} {rest[0]}" if rest else binary


def kind(args, comm):
    if not args:
        return comm
    if len(args) == 1 and " " in args[0]:
        # A process that rewrote its title (Chromium's children do: their cmdline is one
        # string, the switches separated by spaces).
        args = args[0].split(" ")
    base = os.path.basename(args[0])
    if "chrom" in base or "chrom" in comm:
        types = [a[len("--type="):] for a in args if a.startswith("--type=")]
        return "chromium " + (types[0] if types else "browser")
    if base == "node" and len(args) > 1:
        return "node " + os.path.basename(args[1])
    return comm


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out, kinds = sys.argv[1], "--kinds" in sys.argv[2:]
    names, totals, before = {}, {}, {}

    def owner(pid, procs):
        p, hops = pid, 0
        while p in procs and hops < 64:
            if p not in names:
                names[p] = test_name(read_cmdline(p))
            if names[p]:
                return names[p]
            p, hops = procs[p][0], hops + 1
        return "other:" + procs[pid][2]

    def write(*_):
        with open(out, "w") as f:
            for key, ticks in sorted(totals.items(), key=lambda kv: -kv[1]):
                f.write(f"{ticks / TICK:9.1f} {key}\n")
        sys.exit(0)

    signal.signal(signal.SIGTERM, write)
    signal.signal(signal.SIGINT, write)
    while True:
        procs = snapshot()
        for pid, (_, cpu, comm) in procs.items():
            used = cpu - before.get(pid, 0)
            before[pid] = cpu
            if used <= 0:
                continue
            key = owner(pid, procs)
            if kinds:
                key += " | " + kind(read_cmdline(pid), comm)
            totals[key] = totals.get(key, 0) + used
        for pid in [p for p in before if p not in procs]:
            del before[pid]
            names.pop(pid, None)
        time.sleep(1)


if __name__ == "__main__":
    main()
