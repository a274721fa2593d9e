#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""docs/benchmarks.md from the exact-guest results (bench/exact/run.sh).

usage: report.py RESULTS-DIR   (one folder per kernel: results.txt, mode,
tree, guest-info); the document goes to stdout.

Every figure is a CPU time the guest kernel accounted on a 1-vCPU guest
under QEMU's -icount: a count of instructions (2^shift ns each), the same
from run to run. A row's two runs come from one boot, in the order
unprofiled, profilers, unprofiled, profilers; a row whose two runs differ
by more than 0.5% says so.
"""
import os
import sys

SPREAD = 0.005  # two runs further apart than this are flagged

# what each tprof variant is compared with, and what the comparison means
PEER = {
    "tprof:--call-graph_fp": ("perf:", ""),
    "tprof:--call-graph_fp_--kernel-stacks": (
        "perf:", "perf -g takes kernel chains too"),
    "tprof:": ("perf:", "tprof's default (hybrid: fp + 1 KiB snapshot); "
               "perf has no such mode, so against perf -g"),
    "tprof:--call-graph_dwarf": ("perf:--call-graph_dwarf", "8 KiB each"),
    "tprof:--call-graph_fp_--mode_wall": (
        "perf-switch:",
        "off-CPU: perf with a callchain at every switch, its usual recipe"),
    "tprof": ("perf", ""),
    "tprof:--call-graph_fp_--mode_off-cpu": (
        "perf-switch:", "off-CPU samples only (no CPU samples)"),
    "tprof:--call-graph_fp_--mode_wakers": (
        "tprof:--call-graph_fp_--mode_off-cpu",
        "`--mode off-cpu` with the wakers' stacks: one per sampled wait, "
        "read in the waker's context"),
    "tprof-wall": ("perf", "`--mode wall`: the off-CPU session's "
                   "sched_waking probe (wakers) runs at every wakeup too"),
    "tprof-cg": ("perf-cg", "the idle process in a cgroup: tprof "
                 "`--cgroup`, perf `-a -G`"),
    "agent:": ("perf:", "tprof-agent `--cgroup` of a cgroup the work runs "
               "in, one window over the whole run (its default mode, "
               "hybrid, as tprof-read's below)"),
}
# where a row's ratio compares unequal work, what differs (exp, variant)
WORK_NOTES = {
    ("switch-self", "tprof:--call-graph_fp"):
        "perf does less: it swaps the two threads' inherited contexts at "
        "each switch, so its task-clock event runs on and a period counts "
        "the process's CPU time; tprof reads each thread's runtime and "
        "arms the timer for its own budget",
    ("sample depth=120", "tprof:--call-graph_dwarf"):
        "tprof does more: it follows the frame-pointer chain past the "
        "snapshot (its reader joins it to the CFI's frames); perf stops "
        "at the snapshot's end",
}
NAMES = {
    "none": "unprofiled",
    "tprof:--call-graph_fp": "tprof `--call-graph fp`",
    "tprof:--call-graph_fp_--kernel-stacks": "tprof fp `--kernel-stacks`",
    "tprof:": "tprof default (hybrid)",
    "tprof:--call-graph_dwarf": "tprof `--call-graph dwarf`",
    "tprof:--call-graph_fp_--mode_wall": "tprof fp `--mode wall`",
    "tprof:--call-graph_fp_--mode_off-cpu": "tprof fp `--mode off-cpu`",
    "tprof:--call-graph_fp_--mode_wakers": "tprof fp `--mode wakers`",
    "perf:": "perf `-e task-clock -g`",
    "perf:--call-graph_dwarf": "perf `--call-graph dwarf`",
    "perf-switch:": "perf `-g` + `-e sched:sched_switch`",
    "pyspy:": "py-spy `record -r 1000`",
    "cprofile:": "cProfile",
    "tprof": "tprof (`-- CMD`)",
    "perf": "perf `-g -- CMD`",
    "tprof-wall": "tprof `--mode wall`",
    "tprof-cg": "tprof `--cgroup`",
    "agent:": "tprof-agent (one window)",
    "perf-cg": "perf `-a -G`",
}
EXPS = [
    ("sample depth=30", "Per sample, 30 frames deep, 1 kHz"),
    ("sample depth=120", "Per sample, 120 frames deep, 1 kHz"),
    ("switch-self", "Per context switch: a ping-pong of two threads of the "
     "profiled process, 1 kHz"),
    ("switch-unrelated", "Per context switch of others: an unprofiled "
     "ping-pong while the profiler follows an idle process"),
    ("agent", "tprof-agent: the per-sample work (30 frames, 1 kHz) in a "
     "cgroup it serves"),
    ("16x10k", "16 threads at 10 kHz"),
    ("python", "Python: CPython 3.11, 21 frames deep, 1 kHz"),
]


def parse(path):
    runs = []
    with open(path) as f:
        for line in f:
            kv = dict(w.split("=", 1) for w in line.split() if "=" in w)
            if "exp" in kv:
                runs.append(kv)
    return runs


def key(r):
    k = r["exp"]
    if "depth" in r and r["exp"] == "sample":
        k += " depth=" + r["depth"]
    return k


def num(r, k):
    try:
        return int(r.get(k, ""))
    except ValueError:
        return None


def pct(x):
    return "%+.2f%%" % (100 * x)


def table(runs, exp):
    """The markdown rows of one experiment."""
    rows = [r for r in runs if key(r) == exp]
    if not rows:
        return ["(not run)"]
    by = {}
    for r in rows:
        by.setdefault(r["variant"], {})[r["round"]] = r
    base = [num(r, "work_cpu_ns") for r in by.get("none", {}).values()]
    base = [b for b in base if b]
    if not base:
        return ["(no unprofiled run)"]
    b = sum(base) / len(base)
    # profiler CPU: the tree's less the work's, less what the unprofiled
    # tree spends outside the work (start, exit)
    nb = [num(r, "tree_cpu_ns") - num(r, "work_cpu_ns")
          for r in by["none"].values()
          if num(r, "tree_cpu_ns") and num(r, "work_cpu_ns")]
    outside = sum(nb) / len(nb) if nb else 0
    extra = {}
    out = ["| run | target CPU, run 1 / run 2 (ms) | extra | vs peer | "
           "profiler CPU per sample (µs) | samples (lost) | |",
           "|---|---:|---:|---:|---:|---:|---|"]
    for v, rr in by.items():
        w = [num(rr[k], "work_cpu_ns") for k in sorted(rr)]
        w = [x for x in w if x]
        if not w:
            continue
        e = sum(w) / len(w) / b - 1
        extra[v] = e
    for v, rr in by.items():
        w = [num(rr[k], "work_cpu_ns") for k in sorted(rr)]
        w = [x for x in w if x]
        if not w:
            out.append("| %s | failed | | | | | |" % NAMES.get(v, v))
            continue
        notes = []
        if len(w) == 2 and abs(w[0] - w[1]) > SPREAD * min(w):
            notes.append("**runs differ by %.2f%%**" %
                         (100 * abs(w[0] - w[1]) / min(w)))
        if len(w) < 2:
            notes.append("one run")
        vs = ""
        peer = PEER.get(v)
        if v.startswith("tprof") and exp == "python":
            peer = ("cprofile:", "")
        if peer and peer[0] in extra and v in extra:
            pe = extra[peer[0]]
            vs = "%.2fx %s" % (extra[v] / pe, NAMES.get(peer[0], peer[0])) \
                if pe > 0 else "peer costs nothing"
            if peer[1]:
                notes.append(peer[1])
            if (exp, v) in WORK_NOTES:
                notes.append(WORK_NOTES[(exp, v)])
        per = ""
        smp = [num(rr[k], "samples") for k in sorted(rr)]
        lost = [num(rr[k], "lost") for k in sorted(rr)]
        tree = [num(rr[k], "tree_cpu_ns") for k in sorted(rr)]
        if v != "none" and all(smp) and all(tree) and smp:
            pc = [(t - x - outside) / s / 1000
                  for t, x, s in zip(tree, w, smp) if s]
            per = " / ".join("%.1f" % p for p in pc)
        sm = " / ".join(str(s) for s in smp if s is not None)
        if any(lost):
            sm += " (%s)" % " / ".join(str(x or 0) for x in lost)
        out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            NAMES.get(v, v), " / ".join("%.2f" % (x / 1e6) for x in w),
            "" if v == "none" else pct(extra[v]), vs, per, sm,
            "; ".join(notes)))
    return out


def uwalk_table(runs):
    """The worst user-memory walks against a legitimate one."""
    rows = {r["walk"]: r for r in runs if r.get("exp") == "uwalk"}
    if "legit" not in rows:
        return ["(not run)"]
    lg = rows["legit"]
    out = ["| walk | user reads per sample (most) | failed reads per sample "
           "(most) | page checks per sample | sample path (µs) | vs legit |",
           "|---|---:|---:|---:|---:|---:|"]
    names = {"legit": "legitimate: 256 frames, each frame's words in one "
             "span", "spread": "worst: every field and code word apart",
             "codefault": "code words that fault"}
    for w in ("legit", "spread", "codefault"):
        r = rows.get(w)
        if not r:
            continue
        smp = max(num(r, "samples") or 1, 1)
        out.append("| %s | %s | %s | %.1f | %.1f | %.2fx |" % (
            names[w], r["max_reads"], r["max_faults"],
            num(r, "page_checks") / smp, num(r, "path_ns") / 1000,
            num(r, "path_ns") / max(num(lg, "path_ns"), 1)))
    return out


def main():
    top = sys.argv[1]
    kernels = sorted(d for d in os.listdir(top)
                     if os.path.isfile(os.path.join(top, d, "results.txt")))
    p = print
    p("# tprof benchmarks: exact guests")
    p()
    p("Written by `make bench` (bench/exact/run.sh, bench/exact/10-cost.sh, "
      "this page by bench/exact/report.py); do not edit by hand.")
    p()
    p("Every figure is CPU time as the guest kernel accounted it, in a "
      "**1-vCPU Debian guest under QEMU's `-icount shift=N,sleep=off`**: "
      "guest time advances 2^N ns per instruction executed, so a fixed "
      "workload costs the same time run after run, whatever the host is "
      "doing (tests/vm/README.md). These are **instruction counts, not "
      "cycles**: cache and TLB misses and the cost of serializing "
      "instructions are not modeled, so absolute figures are not a "
      "hardware's; ratios between profilers in one boot are what they "
      "measure. Each row ran twice in one boot (unprofiled, every "
      "profiler, unprofiled, every profiler); both runs are shown, and a "
      "row whose runs differ by more than 0.5% says so.")
    p()
    p("- *target CPU*: the workload's own `CLOCK_PROCESS_CPUTIME_ID` over its "
      "work (Debian's kernels have no IRQ time accounting, so the sampling "
      "interrupts and switch probes are charged to it); *extra*: over the "
      "mean of the row's two unprofiled runs.")
    p("- *vs peer*: tprof's extra over the peer's extra in the same boot "
      "(1.00x: the same cost; below: cheaper).")
    p("- *profiler CPU per sample*: the profiler process tree's CPU time "
      "(rusage), less the workload's, per sample; tprof-read writes a "
      "symbolized pprof, perf record a perf.data file (and reads it back "
      "for build-ids).")
    notes = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         "notes.md")
    if os.path.isfile(notes):
        p()
        with open(notes) as f:
            p(f.read().rstrip())
    for k in kernels:
        d = os.path.join(top, k)
        runs = parse(os.path.join(d, "results.txt"))

        def rd(f):
            try:
                with open(os.path.join(d, f)) as fh:
                    return fh.read().strip()
            except OSError:
                return "?"
        info = dict(line.split("=", 1) for line in rd("guest-info").splitlines()
                    if "=" in line)
        p()
        p("## %s (%s), %s" % (k, info.get("kernel", "?"), rd("mode")))
        p()
        p("tprof.ko and tprof-read from %s; %s; ring %s bytes per CPU." % (
            rd("tree"), info.get("perf", "perf ?"),
            info.get("default_ring", "?")))
        for exp, title in EXPS:
            p()
            p("### " + title)
            p()
            for line in table(runs, exp):
                p(line)
        p()
        p("### The worst user-memory walk a group member can describe "
          "(tprof-ktest uwalk-bound)")
        p()
        p("Exact counts from STATS (`uread_*`); the path is tprof.ko's "
          "sampling path with STATS path timing, instruction-exact here.")
        p()
        for line in uwalk_table(runs):
            p(line)


main()
