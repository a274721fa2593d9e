#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn run-lab.sh's raw outputs into the bias lab's metrics.

  analyze.py RUNDIR [--csv FILE] [--md FILE] [--gates]

Truth is the kernel's own accounting, recorded by the workloads: each
thread's sum_exec_runtime at its exit and the process's getrusage() (Go:
getrusage per phase). Metrics, per workload x profiler x rate:
  * per thread: sampled CPU vs true CPU (relative error);
  * per phase: sampled CPU / true CPU, the bias ratio (1.00 is perfect);
  * total: |profile total - rusage| / max(both), Go's magnitude test;
  * lost samples.
--gates prints ok/not ok lines for tprof's regression gates (issue 5).
"""
import csv
import glob
import os
import sys

GATE_PHASE_TOL = 0.03      # per-phase bias ratio within 1.00 +/- 0.03
GATE_THREAD_TOL = 0.02     # threads with >= 1000 samples within 2%
GATE_THREAD_MIN = 1000
GATE_CHURN_TOL = 0.02      # churn total within 2% of rusage


def read_tsv(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def load_run(d):
    meta = dict(read_tsv(os.path.join(d, "meta")))
    run = {"dir": d, "workload": meta.get("workload"), "variant": meta.get("variant"),
           "profiler": meta.get("profiler"), "hz": int(meta.get("hz", 0)),
           "threads": [], "phases": {}, "total": None, "lost": 0, "ok": True}
    truth = read_tsv(os.path.join(d, "truth.tsv"))
    sampled = {}
    for row in read_tsv(os.path.join(d, "sampled.tsv")):
        if row[0] == "lost":
            run["lost"] += int(row[2])
            continue
        sampled[row[0]] = (int(row[1]), int(row[2]))
    if run["workload"] == "go":
        funcs = {r[1]: (int(r[2]), int(r[3])) for r in
                 read_tsv(os.path.join(d, "funcs.tsv")) if r[0] == "func"}
        tot = [r for r in read_tsv(os.path.join(d, "funcs.tsv")) if r[0] == "total"]
        # Frames every profiler sees: a frame-pointer walk from the frameless
        # leaf main.spin skips its direct caller (serialWork/parallelWork).
        phase_fn = {"serial": "main.serialPhase", "parallel": "main.parallelPhase.func1"}
        true_total = 0
        for r in truth:
            if len(r) == 2 and r[0] in phase_fn:
                ns = int(r[1])
                true_total += ns
                s = funcs.get(phase_fn[r[0]], (0, 0))
                run["phases"][r[0]] = {"truth": ns, "sampled": s[0], "samples": s[1]}
        if tot:
            run["total"] = {"truth": true_total, "sampled": int(tot[0][1]),
                            "samples": int(tot[0][2])}
        run["ok"] = bool(funcs)
        return run
    rusage = None
    for r in truth:
        if len(r) != 4:
            continue
        tid, phase, comm, ns = r[0], r[1], r[2], int(r[3])
        if phase == "rusage":
            rusage = ns
            continue
        s = sampled.get(tid, (0, 0))
        run["threads"].append({"tid": tid, "phase": phase, "comm": comm,
                               "truth": ns, "sampled": s[0], "samples": s[1]})
        p = run["phases"].setdefault(phase, {"truth": 0, "sampled": 0, "samples": 0})
        p["truth"] += ns
        p["sampled"] += s[0]
        p["samples"] += s[1]
    if rusage is not None:
        # Samples of threads the truth does not list still count in the total.
        run["total"] = {"truth": rusage,
                        "sampled": sum(v[0] for v in sampled.values()),
                        "samples": sum(v[1] for v in sampled.values())}
    run["ok"] = bool(sampled) and rusage is not None
    return run


def ratio(s, t):
    return s / t if t else float("nan")


def magnitude(tot):
    m = max(tot["truth"], tot["sampled"])
    return abs(tot["sampled"] - tot["truth"]) / m if m else 0.0


def rows_for(run):
    base = [run["workload"], run["variant"], run["profiler"], run["hz"]]
    for t in run["threads"]:
        yield base + ["thread", t["tid"], t["phase"], t["truth"], t["sampled"],
                      t["samples"], "%.4f" % ratio(t["sampled"], t["truth"]), ""]
    for name, p in sorted(run["phases"].items()):
        yield base + ["phase", name, name, p["truth"], p["sampled"], p["samples"],
                      "%.4f" % ratio(p["sampled"], p["truth"]), ""]
    if run["total"]:
        t = run["total"]
        yield base + ["total", "rusage", "", t["truth"], t["sampled"], t["samples"],
                      "%.4f" % ratio(t["sampled"], t["truth"]), run["lost"]]


def summary(run):
    ph = run["phases"]
    big = [t for t in run["threads"] if t["samples"] >= 100]
    worst = max((abs(ratio(t["sampled"], t["truth"]) - 1) for t in big), default=None)
    return {
        "run": "%s %s" % (run["workload"], run["variant"]),
        "profiler": run["profiler"], "hz": run["hz"],
        "serial": ratio(ph["serial"]["sampled"], ph["serial"]["truth"]) if "serial" in ph else None,
        "parallel": ratio(ph["parallel"]["sampled"], ph["parallel"]["truth"]) if "parallel" in ph else None,
        "worst_thread": worst, "magnitude": magnitude(run["total"]) if run["total"] else None,
        "lost": run["lost"], "ok": run["ok"],
    }


def fmt(v, pct=False):
    if v is None:
        return "-"
    if v != v:
        return "nan"
    return "%.1f%%" % (100 * v) if pct else "%.2f" % v


def markdown(runs):
    out = ["| workload | profiler | Hz | serial ratio | parallel ratio | worst thread err (>=100 samples) | abs(total-rusage)/max | lost |",
           "|---|---|---|---|---|---|---|---|"]
    for r in sorted(runs, key=lambda r: (r["workload"], r["variant"], r["hz"], r["profiler"])):
        s = summary(r)
        out.append("| %s | %s | %d | %s | %s | %s | %s | %d%s |" % (
            s["run"], s["profiler"], s["hz"], fmt(s["serial"]), fmt(s["parallel"]),
            fmt(s["worst_thread"], True), fmt(s["magnitude"], True), s["lost"],
            "" if s["ok"] else " (run failed)"))
    return "\n".join(out) + "\n"


def gates(runs):
    fails = 0

    def check(good, what):
        nonlocal fails
        print(("ok - " if good else "not ok - ") + what)
        fails += 0 if good else 1

    tp = [r for r in runs if r["profiler"] == "tprof"]
    sp = [r for r in tp if r["workload"] == "serial-parallel" and r["variant"] == "t8" and r["hz"] == 1000]
    check(bool(sp), "tprof ran serial-parallel on 8 threads at 1 kHz")
    for r in sp:
        check(r["ok"], "tprof serial-parallel t8 produced a profile")
        for ph in ("serial", "parallel"):
            p = r["phases"].get(ph)
            v = ratio(p["sampled"], p["truth"]) if p else float("nan")
            check(abs(v - 1) <= GATE_PHASE_TOL,
                  "tprof %s phase bias ratio %.4f within 1 +/- %.2f (sampled %d ns, true %d ns)"
                  % (ph, v, GATE_PHASE_TOL, p["sampled"] if p else 0, p["truth"] if p else 0))
        big = [t for t in r["threads"] if t["samples"] >= GATE_THREAD_MIN]
        for t in big:
            e = abs(ratio(t["sampled"], t["truth"]) - 1)
            check(e <= GATE_THREAD_TOL, "tprof thread %s (%s, %d samples) within %.0f%% of its CPU (err %.2f%%)"
                  % (t["tid"], t["comm"], t["samples"], 100 * GATE_THREAD_TOL, 100 * e))
        check(len(big) > 0, "the per-thread gate is not vacuous: %d thread(s) with >= %d samples"
              % (len(big), GATE_THREAD_MIN))
        check(r["lost"] == 0, "tprof lost no samples at 1 kHz (lost %d)" % r["lost"])
    ch = [r for r in tp if r["workload"] == "churn" and r["hz"] == 1000]
    check(bool(ch), "tprof ran the churn workload at 1 kHz")
    for r in ch:
        m = magnitude(r["total"]) if r["total"] else 1.0
        check(m <= GATE_CHURN_TOL, "tprof churn total within %.0f%% of rusage (off by %.2f%%)"
              % (100 * GATE_CHURN_TOL, 100 * m))
        check(r["lost"] == 0, "tprof churn lost no samples (lost %d)" % r["lost"])
    return fails


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    rundir = argv[1]
    runs = [load_run(d) for d in sorted(glob.glob(os.path.join(rundir, "*/")))
            if os.path.exists(os.path.join(d, "meta"))]
    args = argv[2:]
    if "--csv" in args:
        with open(args[args.index("--csv") + 1], "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["workload", "variant", "profiler", "hz", "scope", "key", "phase",
                        "truth_ns", "sampled_ns", "samples", "ratio", "lost_samples"])
            for r in runs:
                w.writerows(rows_for(r))
    if "--md" in args:
        with open(args[args.index("--md") + 1], "w") as f:
            f.write(markdown(runs))
    if "--gates" in args:
        return 1 if gates(runs) else 0
    if "--md" not in args and "--csv" not in args:
        sys.stdout.write(markdown(runs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
