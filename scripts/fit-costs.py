#!/usr/bin/env python3
"""Fits the cost model to measured runs: the pulp-rtl board's cycles, with --gvsoc the
siracusa board's on GVSoC's Siracusa, or with --qemu the qemu-virt-rv32 board's
instructions (--m55: mps3-an547's, the Cortex-M55 on QEMU).

Runs `ctest -L rtl -V` (with --gvsoc: -L gvsoc; with --qemu: the firmware_* tests) in the
build directory (or reads such output with --log), takes from each test that prints a
MEASURED line its cycles (instructions) per run, its figure per operator (the testbench's
profile, the firmware's own profile on GVSoC (cluster core 0's mcycle, which forks and joins
every step: a profiled run of its own, each operator's share of it taken of the measured
run), or the hart-counter plugin's per operator label on the run's busiest hart, whose
operators add up to its count) and its run
(the `predict:` line),
asks tessera-inspect for that run's work per variant (tiles, and one core's MACs and
elements), and fits, per kernel set and variant,

    cycles = per_call x calls + per_mac x MACs + per_element x elements + per_byte x DMA bytes
             + per_transfer x DMA transfers

by least squares on relative error, every coefficient >= 0 (the best of the subsets
of terms), for each core count measured (by_cores: bank conflicts and the busiest
core's share differ with the cores) and over every run (for counts never measured); a
run adds what the runs spend outside operators, per_run + per_call x its calls + per_row x
its rows (a decoder-only run copies its rows in and out), fitted alike. A variant's operator is the part of
its name before the first dot; an operator measured with two variants in one run
(matmul.i8 and matmul.i8.f32out) is fitted to the one with more work, and both get its
costs.

It prints the table and each run's prediction against its measurement; with --write it
puts the costs into the descriptions, as "cost" -> "fitted": boards/pulp-rtl/board.json
(every set fitted) and boards/gap9 (xpulpv2, the set its cores run); with --gvsoc
boards/siracusa/board.json (xpulpv2; runs whose weights stream from off-chip memory, those
whose prediction shows an off-chip stream, are left out: their stream is the off-chip
estimate's, not an operator's; their own tests' PREDICTED lines are the fit's prediction out
of sample); with --qemu boards/qemu-virt-rv32/board.json (portable, in instructions); with --m55
boards/mps3-an547/board.json (arm-mve, in instructions).
Python's standard library only.
"""
import argparse
import itertools
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TERMS = ("calls", "macs", "elements", "bytes", "transfers")
NAMES = {"calls": "per_call", "macs": "per_mac", "elements": "per_element", "bytes": "per_byte",
         "transfers": "per_transfer"}


def fail(message):
    print("fit-costs: error: " + message, file=sys.stderr)
    sys.exit(1)


def tests_from_log(text):
    """ctest -V output, or ctest's Testing/Temporary/LastTest.log -> ({test number: [lines]},
    {test number: name})."""
    tests = {}
    names = {}
    current = None
    for line in text.splitlines():
        m = re.match(r"^(\d+)/\d+ Testing: (\S+)", line)  # LastTest.log: a test's block begins
        if m:
            current = int(m.group(1))
            names[current] = m.group(2)
        m = re.search(r"Test +#(\d+): (\S+)", line)  # ctest -V: a test's start and end lines
        if m:
            names[int(m.group(1))] = m.group(2)
        m = re.match(r"^(\d+): (.*)$", line)  # ctest -V: every line numbered
        if m:
            tests.setdefault(int(m.group(1)), []).append(m.group(2))
        elif current is not None:
            tests.setdefault(current, []).append(line)
    return tests, names


MODES = {
    "rtl": {"ctest": ["-L", "rtl"], "names": r"^rtl_", "measured": r"MEASURED cycles per run: busiest core (\d+)",
            "op": r"rtl (\w+): cycles/run (\d+)", "unit": "cycles",
            "boards": (("pulp-rtl", None), ("gap9", ["xpulpv2"])),
            "what": "ctest -L rtl on pulp-rtl (CV32E40P RTL under Verilator), the busiest core's cycles"},
    "gvsoc": {"ctest": ["-L", "gvsoc"], "names": r"^gvsoc_", "measured": r"MEASURED cycles per run: busiest core (\d+)",
              "op": r"(?m)^\s+(?!all:)(\w+): cycles/token (\d+), share", "unit": "cycles",
              "skip": r"(?m)^\s+off-chip (layer \d+|outside the layers)\s+stream",
              "op_total": r"(?m)^\s+all: cycles/token (\d+), share",
              "boards": (("siracusa", ["xpulpv2"]),),
              "what": "ctest -L gvsoc on GVSoC's Siracusa, cluster core 0's cycles (the firmware's profile)"},
    "qemu": {"ctest": ["-R", "^firmware_"], "names": r"^firmware_", "measured": r"MEASURED instructions per token: busiest compute hart (\d+)",
             "op": r"qemu (\w+): instructions/run on the busiest hart (\d+)", "unit": "instructions",
             "boards": (("qemu-virt-rv32", None),),
             "what": "the firmware_* tests on qemu-virt-rv32, the busiest compute hart's instructions (hart-counter plugin)"},
    "m55": {"ctest": ["-R", "^firmware_m55_"], "names": r"^firmware_m55_", "measured": r"MEASURED instructions per token: busiest compute hart (\d+)",
            "op": r"qemu (\w+): instructions/run on the busiest hart (\d+)", "unit": "instructions",
            "boards": (("mps3-an547", None),),
            "what": "the firmware_m55_* tests on mps3-an547 (qemu-system-arm), the core's instructions (hart-counter plugin)"},
}


def measured_runs(tests, names, mode):
    """The runs of the mode's tests (a log of the whole suite holds the others' too)."""
    runs = []
    for number, lines in sorted(tests.items()):
        if number in names and not re.search(mode["names"], names[number]):
            continue
        text = "\n".join(lines)
        total = re.search(mode["measured"], text)
        predict = re.search(r"predict: tessera-inspect (.*)", text)
        name = re.search(r'(?:Test command|Command): .*-DELF=([^\s"]+)', text)
        if not total or not predict or ("skip" in mode and re.search(mode["skip"], text)):
            continue
        ops = {m.group(1): float(m.group(2)) for m in re.finditer(mode["op"], text)}
        # The firmware's profile is a run of its own (the last token again, the profiler
        # attached): each operator gets its share of it, of the measured run.
        profiled = re.search(mode["op_total"], text) if "op_total" in mode else None
        if profiled and float(profiled.group(1)) > 0:
            scale = float(total.group(1)) / float(profiled.group(1))
            ops = {k: v * scale for k, v in ops.items()}
        args = predict.group(1).split()
        kernel_set = args[args.index("--kernel-set") + 1] if "--kernel-set" in args else "portable"
        work_args = args[: args.index("--kernel-set")] + args[args.index("--kernel-set") + 2:] \
            if "--kernel-set" in args else list(args)
        rows = re.match(r"rows:(\d+)@", args[2]) if len(args) > 2 else None
        runs.append({"test": number, "elf": name.group(1) if name else "?", "measured": float(total.group(1)),
                     "rows": int(rows.group(1)) if rows else 1,
                     "ops": ops, "set": kernel_set, "work_args": work_args, "predict_args": args})
    return runs


def work_of(inspect, args):
    out = subprocess.run([inspect] + args + ["--json"], capture_output=True, text=True)
    if out.returncode != 0:
        fail("tessera-inspect %s: %s" % (" ".join(args), out.stderr.strip()))
    variants = json.loads(out.stdout)["variants"]
    for work in variants.values():
        work.setdefault("transfers", 0.0)  # (a tessera-inspect from before the term)
    return variants


def solve(rows, ys, terms):
    """Least squares on relative error over `terms`: coefficients, or None."""
    n = len(terms)
    a = [[0.0] * n for _ in range(n)]
    b = [0.0] * n
    for row, y in zip(rows, ys):
        x = [row[t] / y for t in terms]
        for i in range(n):
            b[i] += x[i]
            for j in range(n):
                a[i][j] += x[i] * x[j]
    for col in range(n):  # Gaussian elimination with partial pivoting
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[pivot][col]) < 1e-12:
            return None
        a[col], a[pivot] = a[pivot], a[col]
        b[col], b[pivot] = b[pivot], b[col]
        for r in range(n):
            if r != col:
                f = a[r][col] / a[col][col]
                for c in range(col, n):
                    a[r][c] -= f * a[col][c]
                b[r] -= f * b[col]
    return [b[i] / a[i][i] for i in range(n)]


# Terms in the order a tie goes: work before calls, so that a variant measured in few runs
# (one shape) scales with its work in a shape it never ran, not with its tiles. Attention's
# work is (head, position) pairs (its elements) before MACs: a position's softmax and its
# requantizations cost the same at any head size, and where the runs have one head size (all
# of Tessera's own int8 attention's: stories260K's 8) the two are in proportion, so MACs
# first would charge a head of 48 six times a head of 8 a position.
PREFERENCE = ("macs", "elements", "bytes", "transfers", "calls")
OPERATOR_PREFERENCE = {"attention": ("elements", "macs", "bytes", "transfers", "calls")}


def fit(rows, ys, op=""):
    """The fewest terms that fit: a term more only for 1 % less squared relative error."""
    best = None
    for k in range(1, len(TERMS) + 1):
        for terms in itertools.combinations(OPERATOR_PREFERENCE.get(op, PREFERENCE), k):
            if any(all(row[t] == 0 for row in rows) for t in terms):
                continue
            coef = solve(rows, ys, terms)
            if coef is None or any(c < 0 for c in coef):
                continue
            err = sum(((sum(c * row[t] for c, t in zip(coef, terms)) - y) / y) ** 2 for row, y in zip(rows, ys))
            if best is None or err < best[0] * 0.99 - 1e-12:
                best = (err, dict(zip(terms, coef)))
    coef = best[1] if best else {}
    return {NAMES[t]: float("%.6g" % coef.get(t, 0.0)) for t in TERMS}


def dump(value, indent=0):
    """JSON with the descriptions' layout: an object of scalars on one line."""
    pad = "  " * indent
    if isinstance(value, dict) and value:
        line = "{ " + ", ".join("%s: %s" % (json.dumps(k), json.dumps(v)) for k, v in value.items()) + " }"
        if all(not isinstance(v, (dict, list)) for v in value.values()) and indent > 0 and len(line) <= 100:
            return line
        items = ["%s  %s: %s" % (pad, json.dumps(k), dump(v, indent + 1)) for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    return json.dumps(value)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                epilog="Example: scripts/fit-costs.py --build build --write")
    p.add_argument("--build", default=os.path.join(ROOT, "build"), help="the build directory (default: build)")
    p.add_argument("--log", help="read this saved output of `ctest -L rtl -V` (or of the whole suite, ctest's "
                   "LastTest.log: the mode's tests are taken) instead of running it")
    p.add_argument("--write", action="store_true", help="write the costs into the board descriptions")
    p.add_argument("--source", default="", help="what the costs were measured on, for their source (e.g. a commit)")
    p.add_argument("--gvsoc", action="store_true", help="fit siracusa's cycles on GVSoC's Siracusa instead")
    p.add_argument("--qemu", action="store_true", help="fit qemu-virt-rv32's instruction counts instead")
    p.add_argument("--m55", action="store_true", help="fit mps3-an547's instruction counts (Cortex-M55 on QEMU) instead")
    p.add_argument("--ops", action="store_true", help="also print each run's operators, predicted against measured")
    a = p.parse_args()
    mode = MODES["m55" if a.m55 else "qemu" if a.qemu else "gvsoc" if a.gvsoc else "rtl"]
    inspect = os.path.join(a.build, "tessera-inspect")
    if not os.access(inspect, os.X_OK):
        fail("no tessera-inspect in %s (build it first)" % a.build)
    if a.log:
        with open(a.log) as f:
            text = f.read()
    else:
        text = subprocess.run(["ctest", "--test-dir", a.build, "-V"] + mode["ctest"], capture_output=True,
                              text=True).stdout
    runs = measured_runs(*tests_from_log(text), mode)
    if not runs:
        fail("no test printed MEASURED and predict lines (ctest %s -V)" % " ".join(mode["ctest"]))
    samples = {}  # (set, variant, cores) -> [(work, cycles)]
    folded = {}   # (set, variant) -> the variant whose costs it takes
    for run in runs:
        run["work"] = work_of(inspect, run["work_args"])
        run["cores"] = int(run["predict_args"][run["predict_args"].index("--cores") + 1])
        by_op = {}
        for variant in run["work"]:
            by_op.setdefault(variant.split(".")[0], []).append(variant)
        for op, cycles in run["ops"].items():
            variants = by_op.get(op)
            if not variants or cycles <= 0:
                continue
            major = max(variants, key=lambda v: (run["work"][v]["macs"] + run["work"][v]["elements"],
                                                 run["work"][v]["calls"]))
            # The major's engine's variants only: a cluster classifier beside NPU jobs on a
            # core (stories260K's npu scenarios) costs 1/3000 of them, at its own fit's rate.
            same = [v for v in variants if v.endswith(".npu") == major.endswith(".npu")]
            work = {t: sum(run["work"][v][t] for v in same) for t in TERMS}
            samples.setdefault((run["set"], major, run["cores"]), []).append((work, cycles))
            for v in variants:  # never across engines: the classifier beside NPU jobs is the cluster's
                if v.endswith(".npu") == major.endswith(".npu"):
                    folded[(run["set"], v)] = major

    def fit_table(keep):
        """{set: {variant: costs}} fitted to the samples of the runs `keep` takes (by core count)."""
        pooled = {}
        for (kernel_set, variant, cores), pts in samples.items():
            if keep(cores):
                pooled.setdefault((kernel_set, variant), []).extend(pts)
        table = {}
        for (kernel_set, variant), pts in sorted(pooled.items()):
            table.setdefault(kernel_set, {})[variant] = fit([w for w, _ in pts], [y for _, y in pts], variant.split(".")[0])
        for (kernel_set, variant), major in folded.items():  # a minor variant never measured alone
            if major in table.get(kernel_set, {}) and variant not in table[kernel_set]:
                table[kernel_set][variant] = table[kernel_set][major]
        return table

    def outside(kernel_set, keep):
        """What the runs spend outside their operators (measured - the operators' sum), as
        per_run + per_call x the run's calls + per_row x its rows (what a decoder-only run
        copies in and out), each >= 0, by least squares on relative error: the fewest terms
        that fit (a term more only for 1 % less error), per_run always; with fewer runs than
        terms, fewer terms. (per_run, per_call, per_row)."""
        rs = [r for r in runs if r["set"] == kernel_set and keep(r["cores"])]
        if not rs:
            return 0.0, 0.0, 0.0
        ys = [max(1.0, r["measured"] - sum(r["ops"].values())) for r in rs]
        xs = [{"one": 1.0, "calls": sum(w["calls"] for w in r["work"].values()), "rows": float(r["rows"])} for r in rs]
        best = (None, {"one": sum(ys) / len(ys)})
        for terms in (("one",), ("one", "calls"), ("one", "rows"), ("one", "calls", "rows")):
            if len(rs) < len(terms) + 1 and len(terms) > 1:
                continue
            coef = solve(xs, ys, terms)
            if coef is None or any(c < 0 for c in coef):
                continue
            err = sum(((sum(c * x[t] for c, t in zip(coef, terms)) - y) / y) ** 2 for x, y in zip(xs, ys))
            if best[0] is None or err < best[0] * 0.99 - 1e-12:
                best = (err, dict(zip(terms, coef)))
        c = best[1]
        return tuple(float("%.6g" % c.get(t, 0.0)) for t in ("one", "calls", "rows"))

    fitted = fit_table(lambda cores: True)  # every run: for core counts never measured
    per_run = {s: outside(s, lambda cores: True) for s in fitted}  # (per_run, per_call, per_row)
    by_cores = {}  # set -> {cores: {"per_run", "per_call", "per_row", "variants"}}
    for n in sorted({r["cores"] for r in runs}):
        for kernel_set, variants in fit_table(lambda cores: cores == n).items():
            base, per_call, per_row = outside(kernel_set, lambda cores: cores == n)
            by_cores.setdefault(kernel_set, {})[n] = {"per_run": base, "per_call": per_call, "per_row": per_row,
                                                      "variants": dict(sorted(variants.items()))}

    def predicted(run, op=None):
        """As tessera-inspect --predict takes them: the entry for the most cores up to the run's
        (with `op`, only that operator's variants)."""
        entry = None
        for n, e in sorted(by_cores.get(run["set"], {}).items()):
            if n <= run["cores"]:
                entry = e
        costs = dict(fitted[run["set"]])
        base, per_call, per_row = per_run[run["set"]]
        if entry:
            costs.update(entry["variants"])
            base, per_call, per_row = entry["per_run"], entry["per_call"], entry["per_row"]
        base += per_call * sum(w["calls"] for w in run["work"].values()) + per_row * run["rows"]
        steps = sum(sum(costs[v][NAMES[t]] * w[t] for t in TERMS) for v, w in run["work"].items()
                    if v in costs and (op is None or v.split(".")[0] == op))
        return steps if op else base + steps

    print("fitted (%s; the busiest core's share of a step's work), by core count:" % mode["unit"])
    for kernel_set, entries in sorted(by_cores.items()):
        for n, e in sorted(entries.items()):
            print("  %s on %d cores: per run %.0f + %.4g a call + %.4g a row" % (kernel_set, n, e["per_run"],
                                                                                  e["per_call"], e["per_row"]))
            for variant, c in sorted(e["variants"].items()):
                print("    %-26s per call %10.4g  per MAC %8.4g  per element %8.4g  per byte %8.4g  per transfer %8.4g" % (
                    variant, c["per_call"], c["per_mac"], c["per_element"], c["per_byte"], c["per_transfer"]))
    print("runs (predicted from the fit, against measured):")
    worst = 0.0
    for run in runs:
        pred = predicted(run)
        ratio = pred / run["measured"]
        worst = max(worst, abs(ratio - 1))
        print("  test %3d %-44s %-9s measured %10.0f predicted %10.0f (%+.1f %%)" % (
            run["test"], os.path.basename(run["elf"]) + " " + run["predict_args"][2] + " x%d" % run["cores"],
            run["set"], run["measured"], pred, 100 * (ratio - 1)))
        if a.ops:
            for op, cycles in sorted(run["ops"].items()):
                print("      %-12s measured %10.0f predicted %10.0f" % (op, cycles, predicted(run, op)))
    print("worst: %.1f %%" % (100 * worst))
    if not a.write:
        return
    entries = {}
    for s, v in sorted(fitted.items()):
        n = sum(1 for r in runs if r["set"] == s)
        entries[s] = {"unit": mode["unit"],
                      "source": "fitted by scripts/fit-costs.py to %d runs of %s%s" % (
                          n, mode["what"], ", " + a.source if a.source else ""),
                      "per_run": per_run[s][0], "per_call": per_run[s][1], "per_row": per_run[s][2],
                      "variants": dict(sorted(v.items())),
                      "by_cores": {str(n): e for n, e in sorted(by_cores.get(s, {}).items())}}
    for name, sets in mode["boards"]:
        path = os.path.join(ROOT, "boards", name, "board.json")
        with open(path) as f:
            desc = json.load(f)
        chosen = {s: e for s, e in entries.items() if sets is None or s in sets}
        if not chosen:
            continue
        desc["cost"]["fitted"] = chosen
        with open(path, "w") as f:
            f.write(dump(desc) + "\n")
        print("wrote %s: cost.fitted %s" % (os.path.relpath(path, ROOT), ", ".join(sorted(chosen))))


if __name__ == "__main__":
    main()
