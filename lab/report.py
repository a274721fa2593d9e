#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Charts and docs for the bias lab (python3-matplotlib from Debian).

  report.py RESULTS.csv OUTDIR TITLE        PNG charts into OUTDIR
  report.py --doc RESULTDIR DOCSDIR TITLE COMMAND
                                            docs/bias.md + docs/bias/*.png
"""
import csv
import os
import shutil
import sys
from collections import defaultdict

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PROFILERS = ["tprof", "perf", "sigprof", "gopprof"]
COLORS = {"tprof": "tab:green", "perf": "tab:blue", "sigprof": "tab:red", "gopprof": "tab:orange"}


def load(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def ratio(r):
    t = int(r["truth_ns"])
    return int(r["sampled_ns"]) / t if t else float("nan")


def chart_scaling(rows, out, title):
    """Parallel-phase bias ratio against thread count, per profiler and rate."""
    data = defaultdict(dict)
    for r in rows:
        if r["workload"] == "serial-parallel" and r["scope"] == "phase" and r["key"] == "parallel":
            data[(r["profiler"], r["hz"])][int(r["variant"][1:])] = ratio(r)
    fig, ax = plt.subplots(figsize=(7, 4))
    for (prof, hz), pts in sorted(data.items()):
        xs = sorted(pts)
        ax.plot(xs, [pts[x] for x in xs], marker="o", color=COLORS.get(prof),
                linestyle="-" if hz == "1000" else "--", label="%s %s Hz" % (prof, hz))
    ax.axhline(1.0, color="black", linewidth=1, label="truth (kernel CPU time)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("threads in the parallel phase")
    ax.set_ylabel("sampled CPU / kernel CPU")
    ax.set_ylim(0, 1.2)
    ax.set_title("Parallel phase, " + title)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "scaling.png"), dpi=100)
    plt.close(fig)


def chart_phases(rows, out, title):
    """Serial and parallel phase ratios at 8 threads (C) and for Go."""
    bars = []
    for r in rows:
        if r["scope"] != "phase" or r["key"] not in ("serial", "parallel"):
            continue
        if r["workload"] == "serial-parallel" and r["variant"] != "t8":
            continue
        label = "%s\n%s %sHz" % ("C t8" if r["workload"] != "go" else "Go", r["profiler"], r["hz"])
        bars.append((label, r["key"], ratio(r), r["profiler"]))
    labels = sorted({b[0] for b in bars})
    fig, ax = plt.subplots(figsize=(max(7, len(labels) * 0.9), 4))
    w = 0.4
    for i, lab in enumerate(labels):
        for b in bars:
            if b[0] == lab:
                x = i + (-w / 2 if b[1] == "serial" else w / 2)
                ax.bar(x, b[2], w, color=COLORS.get(b[3]), alpha=1.0 if b[1] == "serial" else 0.55)
    ax.axhline(1.0, color="black", linewidth=1)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel("sampled / kernel CPU (left serial, right parallel)")
    ax.set_title("Phase bias, " + title)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "phases.png"), dpi=100)
    plt.close(fig)


def chart_threads(rows, out, title):
    """Per-thread relative error against the thread's CPU time."""
    fig, ax = plt.subplots(figsize=(7, 4))
    for prof in PROFILERS:
        xs, ys = [], []
        for r in rows:
            if r["scope"] == "thread" and r["profiler"] == prof and r["hz"] == "1000" \
                    and int(r["truth_ns"]) > 0 and r["phase"] != "main":
                xs.append(int(r["truth_ns"]) / 1e6)
                ys.append(100 * (ratio(r) - 1))
        if xs:
            ax.scatter(xs, ys, s=6, color=COLORS.get(prof), label=prof, alpha=0.6)
    ax.axhline(0, color="black", linewidth=1)
    ax.set_xscale("log")
    ax.set_ylim(-110, 110)
    ax.set_xlabel("thread CPU time (ms, kernel accounting)")
    ax.set_ylabel("sampled - true (%)")
    ax.set_title("Per-thread error at 1 kHz, " + title)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "threads.png"), dpi=100)
    plt.close(fig)


EXPLAIN = """
## Why each profiler gets the result it gets

- **tprof** samples each thread by its own CPU time: a `sched_switch` probe
  arms a per-CPU hard hrtimer with the incoming thread's remaining budget and
  saves the remainder at switch-out, each thread's first budget is random in
  (0, period], and a sample that fires late carries the whole elapsed budget
  as its weight. Every thread's sampled CPU is therefore its kernel CPU time
  within one period, whatever the number of threads. In expectation it is
  short by half of what one sample costs the thread, as that cost follows
  each sample point: about a microsecond a thread on hardware, 50-120 us
  under 8-vCPU TCG, which adds up over many short-lived processes (500
  children of 5 ms each: about -1%).
- **perf** `-e task-clock -c PERIOD` uses the same clock, but every sample
  stands for exactly one period: when the timer fires late (a TCG vCPU that
  its host thread did not run, long irq-off sections), the periods that
  elapsed collapse into one sample and are lost, so the parallel phase is
  under-counted on a busy guest. New threads start with a full period, so
  threads that use less than one period (churn) are never sampled.
- **sigprof** (setitimer(ITIMER_PROF), the mechanism of gperftools and of Go
  before 1.18) has one process-wide timer checked at the scheduler tick, and a
  process can have only one SIGPROF pending: with N threads running at once,
  most expirations merge, so the parallel phase is under-sampled roughly N
  times, and no rate beyond the tick (250 Hz on Debian) is possible.
- **gopprof** (Go's runtime/pprof, per-thread `timer_create` timers since Go
  1.18) is accurate in expectation for Go programs at a fixed 100 Hz, but
  like perf it counts one period per signal, so late timers lose CPU time.
- **The Go rows** split the profile by function (`main.serialPhase`,
  `main.parallelPhase.func1`), while the truth is the process's getrusage
  over each phase, which also holds the Go runtime's own work in that phase
  (idle Ps spinning for work, GC): a perfect profiler scores below 1.00 there,
  so compare the profilers with each other. Frame-pointer walks miss the
  direct caller of a frameless Go leaf, which is why the markers sit one
  frame higher than the workers.
"""


def doc(resdir, docs, title, command):
    os.makedirs(os.path.join(docs, "bias"), exist_ok=True)
    for png in ("phases.png", "scaling.png", "threads.png"):
        src = os.path.join(resdir, png)
        if os.path.exists(src):
            shutil.copy(src, os.path.join(docs, "bias", png))
    with open(os.path.join(resdir, "results.md")) as f:
        table = f.read()
    with open(os.path.join(docs, "bias.md"), "w") as f:
        f.write("# Bias lab: tprof against the kernel's own accounting\n\n")
        f.write("Made by `%s` on %s, in a QEMU guest with 8 vCPUs (TCG). "
                "Truth is the guest kernel's per-thread CPU time "
                "(sum_exec_runtime, as in `/proc/PID/task/TID/schedstat`) and "
                "getrusage; a ratio of 1.00 is perfect. The CSV with every "
                "thread is `build/bias/NAME/results.csv`.\n\n" % (command, title))
        f.write(table)
        f.write("\n![phases](bias/phases.png)\n\n![scaling](bias/scaling.png)\n\n"
                "![threads](bias/threads.png)\n")
        f.write(EXPLAIN)


def main(argv):
    if len(argv) >= 6 and argv[1] == "--doc":
        doc(argv[2], argv[3], argv[4], argv[5])
        return 0
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    rows = load(argv[1])
    os.makedirs(argv[2], exist_ok=True)
    chart_scaling(rows, argv[2], argv[3])
    chart_phases(rows, argv[2], argv[3])
    chart_threads(rows, argv[2], argv[3])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
