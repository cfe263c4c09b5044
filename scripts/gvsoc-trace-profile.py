#!/usr/bin/env python3
"""Where a run's cycles go on GVSoC's Siracusa: a cluster core's instruction trace (GVSoC's
debug build, --trace=pe<N>/insn:FILE; scripts/gvsoc-trace.sh makes one) read over one marked
run of a firmware demo (between tsr_pulp_mark_begin and tsr_pulp_mark_end on core 0, the
last one by default), each instruction's cycles up to the next one charged to its function.
A cycle beyond the first an instruction takes is a stall, charged by what the instruction
was: a load or store by the memory it touched (L1, L2, the weight memory, the peripherals),
a division, a multiplication, or else the fetch of what follows (an instruction-cache miss
or a taken branch); a gap of more than 2,000 cycles is the core asleep (a barrier, an event).

    scripts/gvsoc-trace-profile.py TRACE [--window CORE0_TRACE] [--run N] [--top K] [--lines] [--layers]

--lines adds what the instruction cache costs: the 16-byte instruction lines the run executes
(the cluster's cache lines), how often it enters one (an instruction in a line other than
the one before's), and how many of those entries waited at least 15 cycles, an instruction
fetch refilled from L2 (GVSoC's Siracusa: 4 KiB shared by the cluster, 512 bytes a core);
per function, its lines and its refills, charged to the function whose line was entered.

--layers adds a Llama token's decoder layers, as the run measured them (no profiler): the
cycles from the first entry into an RMSNorm kernel (layer 0's) to the last (the final norm's),
each layer from its first RMSNorm entry to the next layer's.

TRACE's run window comes from the marks in it, or with --window from core 0's trace (the
marks are core 0's). Python's standard library only."""
import argparse
import collections
import re
import sys

INSN = re.compile(r"^\d+: (\d+): .*?\]\s+(\S+?)(?::\d+)?\s+M ([0-9a-f]+) (\S+)\s*(.*)$")
LINE_REFILL = 15  # cycles: an instruction whose next one, in another line, came this late waited for a refill
REGIONS = ((0x10000000, 0x10040000, "L1"), (0x10200000, 0x10400000, "periph"), (0x10400000, 0x10C00000, "wmem"),
           (0x1C000000, 0x1D000000, "L2"))


def region(rest):
    m = re.search(r"PA:([0-9a-f]{8})", rest)
    if not m:
        return "?"
    a = int(m.group(1), 16)
    return next((name for lo, hi, name in REGIONS if lo <= a < hi), "other")


def runs_of(path):
    """The cycles at which each marked run begins and ends (core 0's marks)."""
    spans, begin, last = [], None, None
    with open(path, errors="replace") as f:
        for line in f:
            if "tsr_pulp_mark_" not in line:
                continue
            m = INSN.match(line)
            if not m:
                continue
            cycle, function = int(m.group(1)), m.group(2)
            if function == "tsr_pulp_mark_begin" and (last is None or last != "begin"):
                begin, last = cycle, "begin"
            elif function == "tsr_pulp_mark_end" and last == "begin":
                spans.append((begin, cycle))
                last = "end"
    return spans


def kind(op, rest):
    if re.match(r"^(c\.)?(p\.)?(f)?l[bhwd]u?(sp)?$", op) or op.startswith("p.l"):
        return "load " + region(rest)
    if re.match(r"^(c\.)?(p\.)?(f)?s[bhwd](sp)?$", op):
        return "store " + region(rest)
    if op.startswith(("div", "rem")):
        return "division"
    if op.startswith("mul") or op in ("p.mac", "p.msu"):
        return "multiplication"
    return "fetch or branch"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("trace", help="a cluster core's instruction trace (GVSoC --trace=pe<N>/insn:FILE)")
    p.add_argument("--window", help="core 0's trace, whose marks give the run (default: TRACE's own)")
    p.add_argument("--run", type=int, default=0, help="which marked run, 1 for the first (default: the last)")
    p.add_argument("--top", type=int, default=25, help="functions to list (default: 25)")
    p.add_argument("--lines", action="store_true", help="the instruction lines executed and refilled, in all and per function")
    p.add_argument("--layers", action="store_true", help="a token's decoder layers: from the first RMSNorm kernel entry to the last")
    a = p.parse_args()
    spans = runs_of(a.window or a.trace)
    if not spans:
        sys.exit("gvsoc-trace-profile: no marked run (tsr_pulp_mark_begin ... tsr_pulp_mark_end) in %s" % (a.window or a.trace))
    if a.run < 0 or a.run > len(spans):
        sys.exit("gvsoc-trace-profile: --run %d: the trace has %d marked runs" % (a.run, len(spans)))
    lo, hi = spans[a.run - 1] if a.run else spans[-1]
    cycles, insns = collections.Counter(), collections.Counter()
    stalls = collections.defaultdict(collections.Counter)
    lines = collections.defaultdict(set)  # function -> the 16-byte lines of its instructions
    entered, refills, refill_cycles = 0, collections.Counter(), 0
    norms = []  # the cycles of each entry into an RMSNorm kernel (--layers)
    prev = None
    with open(a.trace, errors="replace") as f:
        for line in f:
            m = INSN.match(line)
            if not m:
                continue
            cycle = int(m.group(1))
            if cycle < lo:
                continue
            if cycle > hi:
                break
            line_of = int(m.group(3), 16) >> 4
            if prev:
                pcycle, function, op, rest, pline = prev
                gap = cycle - pcycle
                cycles[function] += gap
                if gap > 2000:
                    stalls[function]["asleep"] += gap
                else:
                    insns[function] += 1
                    if gap > 1:
                        stalls[function][kind(op, rest)] += gap - 1
                    if line_of != pline:
                        entered += 1
                        if gap >= LINE_REFILL:
                            refills[m.group(2)] += 1
                            refill_cycles += gap
            lines[m.group(2)].add(line_of)
            if "rmsnorm" in m.group(2) and (not prev or prev[1] != m.group(2)):
                norms.append(cycle)
            prev = (cycle, m.group(2), m.group(4), m.group(5), line_of)
    total = sum(cycles.values())
    every = collections.Counter()
    for c in stalls.values():
        every.update(c)
    print("run %d of %d: cycles %d to %d, %d cycles, %d instructions" %
          (a.run or len(spans), len(spans), lo, hi, total, sum(insns.values())))
    print("stall cycles by kind: " + ", ".join("%s %d" % kv for kv in every.most_common()))
    if a.layers:
        if len(norms) < 3 or len(norms) % 2 == 0:
            print("decoder layers: %d RMSNorm entries, not two a layer and a final one" % len(norms))
        else:
            per = [norms[i + 2] - norms[i] for i in range(0, len(norms) - 1, 2)]
            print("decoder layers: %d cycles (%d layers: %s)" % (norms[-1] - norms[0], len(per), " ".join(map(str, per))))
    if a.lines:
        distinct = len(set().union(*lines.values())) if lines else 0
        print("instruction lines: %d distinct (%d bytes), entered %d times, %d of them refilled (>= %d cycles): %d cycles"
              % (distinct, 16 * distinct, entered, sum(refills.values()), LINE_REFILL, refill_cycles))
        print("%10s %6s %8s %6s %8s  %-60s %s" % ("cycles", "share", "insns", "lines", "refills", "stalls (the largest three)",
                                                   "function"))
    else:
        print("%10s %6s %8s  %-60s %s" % ("cycles", "share", "insns", "stalls (the largest three)", "function"))
    for function, c in cycles.most_common(a.top):
        top = ", ".join("%s %d" % kv for kv in stalls[function].most_common(3))
        if a.lines:
            print("%10d %5.1f%% %8d %6d %8d  %-60s %s" % (c, 100.0 * c / total, insns[function], len(lines[function]),
                                                          refills[function], top, function[:70]))
        else:
            print("%10d %5.1f%% %8d  %-60s %s" % (c, 100.0 * c / total, insns[function], top, function[:70]))


if __name__ == "__main__":
    main()
