#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""docs/benchmarks.md and its charts from `make bench` results.

  report.py --guest DIR --reader FILE --kernel K --command C --host-cpu M
            --doc docs/benchmarks.md --png-dir docs/benchmarks

DIR/results.txt has one line of key=value pairs per guest run (bench/guest/
lib.sh), FILE one per reader run (bench/reader.sh). Ratios are medians over
repetitions of per-repetition ratios (each profiled run against the
unprofiled run of the same repetition, in the same boot).
"""
import argparse
import os
import statistics
from collections import defaultdict

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"tprof": "tab:green", "perf": "tab:blue"}
HZS = [100, 1000, 10000]


def parse(path):
    rows = []
    if not os.path.exists(path):
        return rows
    with open(path) as f:
        for line in f:
            d = {}
            for tok in line.split():
                if "=" in tok:
                    k, v = tok.split("=", 1)
                    d[k] = v
            if d:
                rows.append(d)
    return rows


def num(r, k):
    try:
        return float(r[k])
    except (KeyError, ValueError):
        return None


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def ok(r):
    return "failed" not in r and num(r, "work_cpu_ns") is not None


def fmt(x, spec="{:.0f}", none="–"):
    return none if x is None else spec.format(x)


def pct(ratio):
    return "–" if ratio is None else "{:+.1f}%".format((ratio - 1) * 100)


def seq(r):
    return int(r.get("seq", 0))


def bracketed(rows, group, is_target, key="work_cpu_ns", is_base=None):
    """For each target run of a group: (run, baseline) where baseline is the
    mean of the unprofiled runs of the group just before and just after it
    (the host is shared: adjacent runs see the same contention)."""
    is_base = is_base or (lambda r: r.get("prof") == "none")
    g = sorted((r for r in rows if ok(r) and all(r.get(k) == str(v) for k, v in group.items())),
               key=seq)
    out = []
    for i, r in enumerate(g):
        if not is_target(r):
            continue
        near = []
        for j in range(i - 1, -1, -1):
            if is_base(g[j]):
                near.append(num(g[j], key))
                break
        for j in range(i + 1, len(g)):
            if is_base(g[j]):
                near.append(num(g[j], key))
                break
        near = [x for x in near if x]
        if near:
            out.append((r, sum(near) / len(near)))
    return out


def ratios(pairs, key="work_cpu_ns"):
    return [num(r, key) / b for r, b in pairs if num(r, key) is not None]


def rng(xs):
    xs = [x for x in xs if x is not None]
    if len(xs) < 2:
        return ""
    return " (%s … %s)" % (pct(min(xs)), pct(max(xs)))


def select(rows, **match):
    return [r for r in rows if ok(r) and all(r.get(k) == str(v) for k, v in match.items())]


def profiler_cpu(r):
    """The profiler's own CPU time: rusage of the tree minus the workload's."""
    t, w = num(r, "tree_cpu_ns"), num(r, "work_ru_ns")
    return None if t is None or w is None else t - w


# ---------------------------------------------------------------- spin

def fastest(rs, key="work_cpu_ns"):
    rs = [r for r in rs if num(r, key)]
    return min(rs, key=lambda r: num(r, key)) if rs else None


def spin_section(rows, pngdir):
    out = ["## 1. CPU-bound program, 30-frame stacks\n",
           "`bench-work spin THREADS 30 UNITS`: fixed work per thread at a stack "
           "depth of 30 frames (eight threads do a quarter of the one-thread "
           "work each). *Work CPU* is the workload's CPU time as the guest's "
           "scheduler accounts it (`CLOCK_PROCESS_CPUTIME_ID`), which includes "
           "the sampling interrupts it suffered (this kernel has no "
           "`CONFIG_IRQ_TIME_ACCOUNTING`). The one-thread runs share CPU 0 with "
           "their profiler.\n",
           "*Fastest vs fastest* (the headline, and the chart) compares the "
           "fastest run of a variant with the fastest unprofiled run: host load "
           "only ever adds time, so the fastest run is the least disturbed one. "
           "*Bracketed* is the median over runs of each run against the "
           "unprofiled runs just before and after it, with the min … max "
           "spread, which shows how noisy the host was. *vs perf* divides "
           "tprof's fastest-run ratio by perf's. *Extra per sample*: (fastest "
           "work CPU - fastest unprofiled) / samples of that run. *Profiler "
           "CPU*: the profiler process's own CPU time, median (rusage of the "
           "tree minus the workload's): mostly start-up and symbolization "
           "(tprof-read) or event synthesis and the build-id pass (perf), "
           "fixed costs that do not slow the workload down.\n",
           "| threads | rate | profiler | runs | fastest vs fastest | vs perf | bracketed (min … max) | samples | extra per sample | profiler CPU |",
           "|---:|---:|---|---:|---:|---:|---|---:|---:|---:|"]
    chart = defaultdict(dict)
    for t in ("1", "8"):
        base = select(rows, exp="spin", threads=t, prof="none")
        fb = fastest(base)
        if not fb:
            continue
        out.append("| %s | – | unprofiled | %d | %s ms (median %s ms) | – | – | – | – | – |" % (
            t, len(base), fmt(num(fb, "work_cpu_ns") / 1e6),
            fmt(med([num(r, "work_cpu_ns") / 1e6 for r in base]))))
        for hz in HZS:
            fr = {}
            for prof in ("tprof", "perf"):
                f = fastest(select(rows, exp="spin", threads=t, prof=prof, hz=hz))
                fr[prof] = (f, num(f, "work_cpu_ns") / num(fb, "work_cpu_ns") if f else None)
            for prof in ("tprof", "perf"):
                f, ratio = fr[prof]
                if not f:
                    continue
                pairs = bracketed(rows, {"exp": "spin", "threads": t},
                                  lambda r, p=prof: r.get("prof") == p and r.get("hz") == str(hz))
                rs = ratios(pairs)
                per = (num(f, "work_cpu_ns") - num(fb, "work_cpu_ns")) / num(f, "samples") \
                    if num(f, "samples") else None
                # rusage reads high here (clock check): scale to the
                # scheduler clock by the workload's own ratio
                pcpu = med([profiler_cpu(r) * num(r, "work_cpu_ns") / num(r, "work_ru_ns") / 1e6
                            for r, _ in pairs if profiler_cpu(r) is not None and num(r, "work_ru_ns")])
                vs = ratio / fr["perf"][1] if prof == "tprof" and fr["perf"][1] else None
                chart[(prof, t)][hz] = ratio
                out.append("| %s | %s Hz | %s | %d | %s | %s | %s%s | %s | %s | %s |" % (
                    t, hz, prof, len(pairs), pct(ratio),
                    "–" if vs is None else "%.3f" % vs, pct(med(rs)), rng(rs),
                    fmt(num(f, "samples")),
                    fmt(per / 1e3 if per is not None else None, "{:.1f} µs"),
                    fmt(pcpu, "{:.0f} ms")))
    out.append("")
    if chart:
        fig, ax = plt.subplots(figsize=(7, 4))
        for (prof, t), pts in sorted(chart.items()):
            xs = sorted(h for h in pts if pts[h] is not None)
            ax.plot(xs, [(pts[h] - 1) * 100 for h in xs], marker="o",
                    color=COLORS[prof], linestyle="-" if t == "1" else "--",
                    label="%s, %s thread%s" % (prof, t, "" if t == "1" else "s"))
        ax.set_xscale("log")
        ax.set_xticks(HZS)
        ax.set_xticklabels(["100 Hz", "1 kHz", "10 kHz"])
        ax.axhline(0, color="grey", linewidth=0.5)
        ax.set_xlabel("sampling rate per thread (of its CPU time)")
        ax.set_ylabel("fastest run vs fastest unprofiled (%)")
        ax.set_title("Slowdown of a CPU-bound program, 30-frame stacks\n(QEMU TCG guest on a shared host, fastest runs)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(pngdir, "slowdown.png"), dpi=100)
        plt.close(fig)
        out.append("![slowdown vs sampling rate](benchmarks/slowdown.png)\n")
    return out, chart


def irqs_section(rows):
    rs = [r for r in rows if ok(r) and r.get("exp") == "irqs" and num(r, "loc_irqs") is not None]
    if not rs:
        return []
    out = ["### 1b. Timer interrupts per sample\n",
           "One thread pinned to CPU 0 with its profiler (`bench/guest/50-interrupts.sh`): "
           "local timer interrupts CPU 0 took during the run (`/proc/interrupts` "
           "LOC, which also counts the kernel's own tick and any other timer on "
           "that CPU), samples delivered, and for tprof the periods folded into "
           "a later sample because its timer fired late (STATS "
           "`late_timer_periods`). Medians over runs.\n",
           "| rate | profiler | runs | work CPU | samples | samples per s of work CPU | LOC interrupts | interrupts per sample | late periods per sample |",
           "|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for hz in ("0", "1000", "10000"):
        for prof in ("none", "tprof", "perf"):
            sel = [r for r in rs if r.get("prof") == prof and (r.get("hz") == hz)]
            if not sel:
                continue
            w = med([num(r, "work_cpu_ns") for r in sel])
            smp = med([num(r, "samples") for r in sel]) if prof != "none" else None
            loc = med([num(r, "loc_irqs") for r in sel])
            ips = med([num(r, "loc_irqs") / num(r, "samples") for r in sel if num(r, "samples")])
            late = med([num(r, "late_timer_periods") / num(r, "samples")
                        for r in sel if num(r, "samples") and num(r, "late_timer_periods") is not None])
            rate = med([num(r, "samples") / (num(r, "work_cpu_ns") / 1e9) for r in sel if num(r, "samples")])
            out.append("| %s | %s | %d | %s ms | %s | %s | %s | %s | %s |" % (
                "–" if hz == "0" else hz + " Hz", prof, len(sel), fmt(w / 1e6), fmt(smp),
                fmt(rate), fmt(loc), fmt(ips, "{:.2f}"), fmt(late, "{:.2f}")))
    out.append("")
    return out


# ---------------------------------------------------------------- pingpong

def pp_section(rows):
    out = ["## 2. Context switches: pipe ping-pong\n",
           "Both ends pinned to CPU 0; CPU time of both ends (scheduler clock) per "
           "round trip (two context switches), against the unprofiled runs just "
           "before and after. *Unrelated*: two processes ping-pong, unprofiled, "
           "while the profiler, also on CPU 0, profiles a sleeping process "
           "(`bench-work idle`): the cost of tprof's `sched_switch` probe (or "
           "perf's context-switch hooks) on everyone else. *Self*: the ping-pong "
           "is the profiled process, at 1 kHz, with the profiler on CPU 0 too "
           "(tprof follows a process's threads, not its forks, so both ends are "
           "threads of one process here).\n",
           "*Fastest vs fastest* and *bracketed*: as in benchmark 1.\n",
           "| case | profiler | runs | fastest: CPU per round trip | fastest vs fastest | vs perf | bracketed (min … max) |",
           "|---|---|---:|---:|---:|---:|---|"]
    res = {}
    for case, group, field in (("unrelated (2 processes)", {"exp": "pp-unrelated"}, "bg"),
                               ("self (2 threads, 1 kHz)", {"exp": "pp-self"}, "prof")):
        base = [r for r in rows if ok(r) and r.get("exp") == group["exp"] and r.get(field) == "none"]
        if not base:
            continue
        fb = fastest(base)
        per_rt = lambda r: num(r, "work_cpu_ns") / num(r, "rounds")  # noqa: E731
        out.append("| %s | none | %d | %s ns | – | – | – |" % (case, len(base), fmt(per_rt(fb))))
        got = {}
        for prof in ("tprof", "perf"):
            pairs = bracketed(rows, group, lambda r, p=prof, f=field: r.get(f) == p,
                              is_base=lambda r, f=field: r.get(f) == "none")
            f = fastest([r for r, _ in pairs])
            got[prof] = (pairs, f, per_rt(f) / per_rt(fb) if f else None)
        for prof in ("tprof", "perf"):
            pairs, f, ratio = got[prof]
            if not f:
                continue
            res[(group["exp"], prof)] = ratio
            vs = ratio / got["perf"][2] if prof == "tprof" and got["perf"][2] else None
            out.append("| %s | %s%s | %d | %s ns | %s | %s | %s%s |" % (
                case, prof, " (other process)" if field == "bg" else "", len(pairs),
                fmt(per_rt(f)), pct(ratio), "–" if vs is None else "%.3f" % vs,
                pct(med(ratios(pairs))), rng(ratios(pairs))))
    out.append("")
    return out, res, None


# ---------------------------------------------------------------- depth

def depth_section(rows, pngdir):
    out = ["## 3. Per-sample kernel cost by stack depth\n",
           "One thread at 10 kHz, `--max-frames 512`. *Sampling path* is tprof.ko's "
           "own measurement, STATS `sample_path_ns / sample_path_calls` (from the "
           "STATS record of `--save-raw`; stack walk and ring write, not the "
           "interrupt around them), the lowest of the runs' means, in emulated "
           "ns. *Extra CPU per sample* is (fastest profiled run - fastest "
           "unprofiled run) / samples: everything a sample costs the "
           "workload, interrupt entry and exit included, the only per-sample "
           "figure available for perf too. perf's stacks stop at "
           "`kernel.perf_event_max_stack` (127). *User frames* and *walks "
           "ended by a fault* come from the saved SAMPLE records (the spin "
           "thread's stack is DEPTH frames deep, thread start included).\n",
           "| depth | tprof user frames (mean) | walks ended by a fault | tprof sampling path (lowest run mean) | tprof extra CPU per sample | perf extra CPU per sample | tprof / perf |",
           "|---:|---:|---:|---:|---:|---:|---:|"]
    depths = sorted({int(r["depth"]) for r in rows if r.get("exp") == "depth"})
    pts = {"path": {}, "tprof": {}, "perf": {}}
    for d in depths:
        tp = select(rows, exp="depth", depth=d, prof="tprof")
        paths = [num(r, "sample_path_ns") / num(r, "sample_path_calls")
                 for r in tp if num(r, "sample_path_calls")]
        path = min(paths) if paths else None
        frames = med([num(r, "mean_user_frames") for r in tp])
        faults = med([num(r, "user_fault_samples") / num(r, "records_samples")
                      for r in tp if num(r, "records_samples")])
        fb = fastest(select(rows, exp="depth", depth=d, prof="none"))

        def per(prof):
            f = fastest(select(rows, exp="depth", depth=d, prof=prof))
            if not f or not fb or not num(f, "samples"):
                return None
            return (num(f, "work_cpu_ns") - num(fb, "work_cpu_ns")) / num(f, "samples")
        ct, cp = per("tprof"), per("perf")
        pts["path"][d], pts["tprof"][d], pts["perf"][d] = path, ct, cp
        out.append("| %d | %s | %s | %s ns | %s ns | %s ns | %s |" % (
            d, fmt(frames, "{:.1f}"), fmt(faults * 100 if faults is not None else None, "{:.0f}%"),
            fmt(path), fmt(ct), fmt(cp),
            "%.2f" % (ct / cp) if ct and cp and cp > 0 else "–"))
    out.append("")
    if depths:
        fig, ax = plt.subplots(figsize=(7, 4))
        for k, lab, col, ls in (("path", "tprof sampling path (STATS)", "tab:green", "-"),
                                ("tprof", "tprof extra CPU per sample (noisy)", "tab:green", "--"),
                                ("perf", "perf extra CPU per sample (noisy)", "tab:blue", "--")):
            xs = [d for d in depths if pts[k].get(d) is not None]
            ax.plot(xs, [pts[k][d] / 1e3 for d in xs], marker="o", color=col,
                    linestyle=ls, label=lab)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("stack depth of the workload (frames)")
        ax.set_ylabel("µs per sample (emulated)")
        ax.set_title("Per-sample cost by stack depth, 10 kHz\n(QEMU TCG guest on a shared host)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(pngdir, "depth.png"), dpi=100)
        plt.close(fig)
        out.append("![per-sample cost vs depth](benchmarks/depth.png)\n")
    return out, pts


# ---------------------------------------------------------------- rings

def rings_section(rows):
    out = ["## 4. Rings: 10 kHz x 16 threads, default ring\n",
           "`bench-work spin 16 30 UNITS` on 8 vCPUs at 10 kHz per thread, default "
           "ring (256 KiB per CPU). *Reader CPU* is the profiler process's CPU "
           "time (tree minus workload: tprof-read's reads, decoding and final "
           "symbolization; perf's writes and build-id pass), also as % of the "
           "workload's CPU.\n",
           "*Delivered rate* is samples per second of the workload's CPU time "
           "(per thread; nominal 10,000 Hz). With 16 busy threads on 8 vCPUs "
           "that take turns on one host thread, a vCPU's timer interrupt waits "
           "for its turn, so far fewer, heavier samples reach the rings than on "
           "hardware (tprof folds the late periods into the sample's weight, "
           "perf drops them): this load is much lighter than 10 kHz x 16 on a "
           "real machine.\n",
           "| profiler | samples | delivered rate per thread | samples per s (guest wall, all CPUs) | lost samples (median, max) | lost % | reader CPU | reader / workload CPU | work CPU vs unprofiled |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    res = {}
    for prof in ("tprof", "perf"):
        rs = select(rows, exp="rings", prof=prof)
        if not rs:
            continue
        s = med([num(r, "samples") for r in rs])
        lost = [num(r, "lost") or 0 for r in rs]
        pc = med([profiler_cpu(r) for r in rs])
        wc = med([num(r, "work_ru_ns") for r in rs])
        ratio = med(ratios(bracketed(rows, {"exp": "rings"}, lambda r, p=prof: r.get("prof") == p)))
        # rusage reads high in this guest (see the clock check): scale the
        # profiler's rusage CPU to the scheduler clock by the workload's ratio
        wc_sched = med([num(r, "work_cpu_ns") for r in rs])
        res[prof] = (s, med(lost), max(lost))
        rate = med([num(r, "samples") / (num(r, "work_cpu_ns") / 1e9)
                    for r in rs if num(r, "samples")])
        wrate = med([num(r, "samples") / (num(r, "work_wall_ns") / 1e9)
                     for r in rs if num(r, "samples") and num(r, "work_wall_ns")])
        out.append("| %s | %s | %s Hz | %s | %s, %s%s | %s | %s ms | %s | %s |" % (
            prof, fmt(s), fmt(rate), fmt(wrate), fmt(med(lost)), fmt(max(lost)),
            " (chunks)" if prof == "perf" else "",
            fmt(med(lost) / (s + med(lost)) * 100 if s and prof == "tprof" else None, "{:.2f}%"),
            fmt(pc / 1e6 * (wc_sched / wc) if pc is not None and wc else None),
            fmt(pc / wc * 100 if pc is not None and wc else None, "{:.1f}%"), pct(ratio)))
    out.append("")
    return out, res


# ---------------------------------------------------------------- reader

def reader_section(rows):
    out = ["## 5. Reader throughput (host, not emulated)\n",
           "`bench/work/gen-stream` writes a saved raw stream (records built by the "
           "unit tests' stream builder, `tests/unit/testlib.c`): N samples over "
           "10,000 distinct 30-frame user stacks, 8 threads, addresses in "
           "tprof-read's own text so symbolization does real work. `tprof-read "
           "--input FILE -o out.pb.gz` decodes, aggregates, symbolizes and writes "
           "gzipped pprof. Rate = samples / CPU time (user+sys) of tprof-read; "
           "peak RSS from wait4().\n",
           "| mode | samples | stream | CPU time | samples/s (CPU) | samples/s (wall) | peak RSS |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    res = {}
    for mode in ("symbolize", "no-symbolize"):
        rs = [r for r in rows if r.get("mode") == mode and r.get("rc") == "0"]
        if not rs:
            continue
        n = num(rs[0], "samples")
        cpu = med([num(r, "tree_cpu_ns") for r in rs])
        wall = med([num(r, "tree_wall_ns") for r in rs])
        rss = max(num(r, "maxrss_kb") for r in rs)
        res[mode] = (n / (cpu / 1e9), rss)
        out.append("| %s | %s | %s MB | %.2f s | %s | %s | %s MB |" % (
            mode, fmt(n), fmt(num(rs[0], "bytes") / 1e6), cpu / 1e9,
            fmt(n / (cpu / 1e9)), fmt(n / (wall / 1e9)), fmt(rss / 1024)))
    failed = [r for r in rows if r.get("rc") != "0"]
    if failed:
        out.append("\n%d reader runs failed (rc != 0)." % len(failed))
    out.append("")
    return out, res


def targets(chart, pp_res, pts, rings, reader):
    out = ["## Targets (issue 6: a compass, not gates)\n",
           "| target | measured | |", "|---|---|---|"]

    def row(name, val, met):
        out.append("| %s | %s | %s |" % (name, val, "met" if met else ("**missed**" if met is not None else "not measured")))
    t1 = chart.get(("tprof", "1"), {}).get(1000)
    t8 = chart.get(("tprof", "8"), {}).get(1000)
    row("≤ 1% slowdown at 1 kHz (CPU-bound, 30 frames)",
        "%s (1 thread), %s (8 threads)" % (pct(t1), pct(t8)),
        None if t1 is None else (t1 <= 1.01 and (t8 is None or t8 <= 1.01)))
    d30 = [d for d in pts["tprof"] if pts["tprof"][d] is not None and pts["perf"].get(d)]
    if d30:
        worse = [d for d in d30 if pts["tprof"][d] > pts["perf"][d]]
        row("per-sample cost ≤ perf's", "tprof/perf CPU per sample at depth %s: %s" % (
            ", ".join(str(d) for d in d30),
            ", ".join("%.2f" % (pts["tprof"][d] / pts["perf"][d]) for d in d30)), not worse)
    else:
        row("per-sample cost ≤ perf's", "–", None)
    r = pp_res.get(("pp-unrelated", "tprof"))
    if r:
        row("probe adds ≤ 2% to an unrelated ping-pong", pct(r), r <= 1.02)
    else:
        row("probe adds ≤ 2% to an unrelated ping-pong", "–", None)
    if "tprof" in rings:
        s, lm, lx = rings["tprof"]
        row("0 lost samples at 10 kHz x 16 threads, default ring",
            "%s lost (median), %s (max) of %s" % (fmt(lm), fmt(lx), fmt(s)), lx == 0)
    else:
        row("0 lost samples at 10 kHz x 16 threads, default ring", "–", None)
    if "symbolize" in reader:
        rate = reader["symbolize"][0]
        row("reader ≥ 1 million samples/s", "%s samples/s (CPU, symbolized)" % fmt(rate), rate >= 1e6)
    else:
        row("reader ≥ 1 million samples/s", "–", None)
    out.append("")
    return out


# ---------------------------------------------------------------- issue 12

SWITCH_HEAD = "## 6. Per-switch cost (issue 12)"
KERNEL_ORDER = ["6.1", "6.12", "6.12-rt"]


def by_mod(rows, mod):
    """Rows of one module: mod=base are BENCH_BASE's module's runs (lines
    without mod, from older runs, are this tree's); unprofiled and perf runs,
    with no tprof session anywhere, belong to both."""
    if mod == "head":
        return [r for r in rows if r.get("mod", "head") != "base"]
    return [r for r in rows if r.get("mod") == mod or r.get("prof") == "perf" or
            (r.get("prof") == "none" and r.get("bg", "none") == "none")]


def per_switch(rs, keys, den="sw0"):
    vals = [sum(num(r, k) or 0 for k in keys) / num(r, den) for r in rs if num(r, den)]
    return med(vals), vals


def loc_per_sample(rows, hz):
    """(LOC per sample, LOC beyond the tick per sample, expiries of tprof's
    own hrtimer per sample): the tick's share is the unprofiled runs' LOC per
    ns of wall time, times the run's wall time."""
    rs = [r for r in rows if ok(r) and r.get("exp") == "irqs" and num(r, "loc_irqs") is not None]
    # the LOC window is the whole run (tprof-read's start and end too):
    # the tree's wall time
    base = [num(r, "loc_irqs") / num(r, "tree_wall_ns") for r in rs
            if r.get("prof") == "none" and num(r, "tree_wall_ns")]
    tick = med(base)
    sel = [r for r in rs if r.get("prof") == "tprof" and r.get("hz") == str(hz) and num(r, "samples")]
    raw = med([num(r, "loc_irqs") / num(r, "samples") for r in sel])
    net = med([(num(r, "loc_irqs") - tick * num(r, "tree_wall_ns")) / num(r, "samples")
               for r in sel if tick is not None and num(r, "tree_wall_ns")])
    own = med([num(r, "tp_expire") / num(r, "samples") for r in sel
               if num(r, "tp_expire") is not None])
    return raw, net, own


def path_fit(rows):
    """STATS sampling path per sample by frames walked: lowest run mean per
    depth, and a least-squares line a + b * frames over the depths."""
    pts = {}
    for r in rows:
        if not ok(r) or r.get("exp") != "depth" or r.get("prof") != "tprof":
            continue
        if not num(r, "sample_path_calls") or num(r, "mean_user_frames") is None:
            continue
        d = int(r["depth"])
        v = (num(r, "sample_path_ns") / num(r, "sample_path_calls"), num(r, "mean_user_frames"))
        if d not in pts or v[0] < pts[d][0]:
            pts[d] = v
    if len(pts) < 2:
        return pts, None, None
    xs = [f for _, f in pts.values()]
    ys = [ns for ns, _ in pts.values()]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if not sxx:
        return pts, None, None
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return pts, my - b * mx, b


def pp_self_ratio(rows, prof):
    pairs = bracketed(rows, {"exp": "pp-self"}, lambda r, p=prof: r.get("prof") == p)
    rs = ratios(pairs)
    return med(rs), rs


def kernels_results(top):
    out = {}
    if not top or not os.path.isdir(top):
        return out
    for k in os.listdir(top):
        rows = parse(os.path.join(top, k, "guest", "results.txt"))
        if rows:
            out[k] = rows
    order = {k: i for i, k in enumerate(KERNEL_ORDER)}
    return dict(sorted(out.items(), key=lambda kv: (order.get(kv[0], 99), kv[0])))


def switch_section(kernels, base_revs, kernels_dir=None):
    def verdict(v, limit):
        if v is None:
            return "not measured"
        return "met" if v <= limit else "**missed**"

    def f3(v):
        return fmt(v, "{:.3f}")

    out = [SWITCH_HEAD + "\n",
           "What issue 12 asks for, counted rather than timed (wall time under "
           "TCG is too noisy for a 20%% effect). *Before* is the module as "
           "landed before the change (`BENCH_BASE`, commit %s), *after* this "
           "tree's. Both are measured in the same boot, run by run (the "
           "profiled runs of `bench/guest/20-pingpong.sh`, `30-depth.sh`, "
           "`50-interrupts.sh` and `60-switches.sh` are repeated with the "
           "baseline module, which `bench/guest/lib.sh` swaps in with rmmod "
           "and insmod; `bench.sh` builds it from `git archive`), with "
           "tprof-read from this tree (the ABI did not change).\n"
           % (", ".join(sorted(base_revs)) or "–"),
           "**How the timer operations are counted** (`bench/guest/60-switches.sh`): "
           "tracefs hist triggers on `timer:hrtimer_start`, `timer:hrtimer_cancel` "
           "and `sched:sched_switch` (the tracepoints `perf stat -e` counts), keyed "
           "by CPU, hrtimer and callback, so tprof's own operations are exact: "
           "every `hrtimer_start` whose function is `tprof_timer_fn`, and every "
           "`hrtimer_cancel` of one of those hrtimers. `hrtimer_start` fires at "
           "every enqueue, the callback's own re-arm (`HRTIMER_RESTART`) "
           "included; `hrtimer_cancel` at every removal of a queued timer other "
           "than its expiry (a cancel, or a restart of a still queued timer). "
           "These are the tracepoint counts issue 12 quoted (1.0 cancels and "
           "1.17 starts per "
           "switch), not reprogrammings of the timer hardware. Denominator: "
           "`sched_switch` events on CPU 0 during the run (the ping-pong is "
           "pinned there; tprof-read and idle switches included, a few per "
           "cent). A pipe ping-pong of ROUNDS round trips:\n",
           "- *profiled threads*: two threads of one process ping-pong, profiled "
           "at 1 kHz (tprof-read on CPU 0 too); target ≤ 0.3 per switch;",
           "- *unprofiled, session elsewhere*: two unprofiled processes ping-pong "
           "on CPU 0 while a session profiles a sleeping process (*idle*) or a "
           "thread spinning on CPU 1 (*spin*, CPU 0's operations counted): "
           "target 0.",
           "",
           "*Timer interrupts per sample*: `bench/guest/50-interrupts.sh` (one "
           "pinned thread, 30 frames): the expiries of tprof's own hrtimer "
           "(`timer:hrtimer_expire_entry` with function `tprof_timer_fn`, a "
           "hist trigger; exact) over tprof's samples, and all of CPU 0's LOC "
           "interrupts over them (the kernel's tick and tprof-read's start "
           "and end included: at 1 kHz mostly the tick); target ≤ 1.3, judged on tprof's "
           "timer. *Path per "
           "frame*: the STATS sampling path (`sample_path_ns / "
           "sample_path_calls`, lowest run mean per depth, `30-depth.sh`; the "
           "module after the change fills it only with `TPROF_F_PATH_TIMING`, "
           "which `bench/work/path-timing.c` adds to tprof-read's ENABLE) "
           "fitted as a + b x frames walked. *Ping-pong vs unprofiled*: "
           "`20-pingpong.sh`'s profiled ping-pong, the median of bracketed "
           "ratios (noisy: see section 2).\n"]
    # the table: one row per kernel and module
    out += ["| kernel | module | timer ops per switch, profiled threads (≤ 0.3) | STATS timer_arms / sched_ins | unprofiled, session elsewhere: tprof timer ops: idle; spin, on CPU 0 (its timer on CPU 1) (0) | timer interrupts per sample at 10 kHz: tprof's timer / all LOC (≤ 1.3) | at 1 kHz | sampling path: a + b per frame | ping-pong vs unprofiled: tprof, perf |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    verdicts = []
    raw = []
    for k, rows in kernels.items():
        for mod, label in (("base", "before"), ("head", "after")):
            rs = by_mod(rows, mod)
            if not rs:
                continue
            sw = [r for r in rs if ok(r) and r.get("exp") == "switch"]
            selfr = [r for r in sw if r.get("case") == "self"]
            idle = [r for r in sw if r.get("case") == "unrel-idle"]
            spin = [r for r in sw if r.get("case") == "unrel-spin"]
            ps, _ = per_switch(selfr, ("tp_start", "tp_cancel"))
            arms = med([num(r, "timer_arms") / num(r, "sched_ins") for r in selfr
                        if num(r, "sched_ins")])
            idle_ops = [(num(r, "tp_start") or 0) + (num(r, "tp_cancel") or 0) for r in idle]
            spin_ops = [(num(r, "tp_start0") or 0) + (num(r, "tp_cancel0") or 0) for r in spin]
            # the session was live on CPU 1: its timer ran there
            spin_live = [(num(r, "tp_start") or 0) - (num(r, "tp_start0") or 0) for r in spin]
            unrel = None if not idle_ops and not spin_ops else max(idle_ops + spin_ops)
            i10 = loc_per_sample(rs, 10000)
            i1 = loc_per_sample(rs, 1000)
            _, a, b = path_fit(rs)
            ppt, _ = pp_self_ratio(rs, "tprof")
            ppp, _ = pp_self_ratio(rs, "perf")
            out.append("| %s | %s | %s | %s | %s; %s | %s / %s | %s / %s | %s | %s, %s |" % (
                k, label, f3(ps),
                f3(arms) if arms else "–",
                fmt(max(idle_ops) if idle_ops else None),
                "%s (CPU 1: %s)" % (fmt(max(spin_ops)), fmt(min(spin_live))) if spin_ops else "–",
                fmt(i10[2], "{:.2f}"), fmt(i10[0], "{:.2f}"),
                fmt(i1[2], "{:.2f}"), fmt(i1[0], "{:.2f}"),
                "%.0f + %.0f ns" % (a, b) if a is not None else "–",
                pct(ppt), pct(ppp)))
            if mod == "head":
                verdicts.append((k, ps, unrel, i10, i1))
            for r in sw:
                raw.append("%s %s: %s" % (k, label, " ".join(
                    "%s=%s" % (x, r.get(x, "–")) for x in
                    ("case", "rep", "rounds", "sw0", "swin0", "tp_start", "tp_cancel",
                     "tp_start0", "tp_cancel0", "hr_start0", "hr_cancel0",
                     "timer_arms", "sched_ins", "samples"))))
    out.append("")
    out += ["Targets, after the change:\n",
            "| kernel | ≤ 0.3 timer ops per switch between profiled threads | 0 for unprofiled tasks | ≤ 1.3 timer interrupts per sample (tprof's timer at 10 kHz; at 1 kHz) |",
            "|---|---|---|---|"]
    for k, ps, unrel, i10, i1 in verdicts:
        i_raw = i10[2]
        out.append("| %s | %s (%s) | %s (%s) | %s (%s) |" % (
            k, verdict(ps, 0.3), f3(ps),
            "not measured" if unrel is None else ("met" if unrel == 0 else "**missed**"), fmt(unrel),
            verdict(i_raw, 1.3), fmt(i_raw, "{:.2f}") + "; " + fmt(i1[2], "{:.2f}")))
    out.append("")
    # the path cost per depth, before and after
    dp = []
    for k, rows in kernels.items():
        for mod, label in (("base", "before"), ("head", "after")):
            pts, _, _ = path_fit(by_mod(rows, mod))
            for d in sorted(pts):
                dp.append("| %s | %s | %d | %.1f | %.0f ns |" % (k, label, d, pts[d][1], pts[d][0]))
    if dp:
        out += ["Sampling path (STATS) by depth:\n",
                "| kernel | module | depth | user frames walked (mean) | path per sample (lowest run mean) |",
                "|---|---|---:|---:|---:|"] + dp + [""]
    cmds = []
    for k in kernels if kernels_dir else []:
        p = os.path.join(kernels_dir, k, "guest", "commands")
        if os.path.exists(p):
            cmds += ["%s: `%s`" % (k, c.strip()) for c in open(p) if c.strip()]
    if cmds:
        out += ["Produced by (each kernel's runs, in order; `BENCH_CASES` runs add "
                "their lines to the kernel's earlier results):\n"] + \
            ["- " + c for c in cmds] + [""]
    if raw:
        out += ["Raw counts, one line per run (`build/bench/NAME/guest/results.txt`, "
                "`exp=switch`; tp_* are tprof's timer operations, hr_*0 every "
                "hrtimer's on CPU 0, sw0 CPU 0's switches, swin0 the ping-pong "
                "threads' switch-ins there):\n", "```"] + raw + ["```", ""]
    return out


# ---------------------------------------------------------------- issue 16

SNAP_HEAD = "## 7. User stack snapshots (issue 16)"
SNAP_MODES = ["fp", "hybrid", "dwarf", "perf-dwarf"]


def snapshot_section(kernels, unwind_txt=None):
    """Per kernel and --call-graph mode, at 1 kHz x 16 threads with the
    default ring (bench/guest/70-snapshots.sh)."""
    out = [SNAP_HEAD + "\n",
           "`bench-work spin 16 30 UNITS` (16 threads, 30-frame stacks) at 1 kHz "
           "per thread with the default ring, by `--call-graph` mode, and perf "
           "`record --call-graph dwarf` (8 KiB stacks, its default) in the same "
           "boot (`bench/guest/70-snapshots.sh`). *Bytes per sample*: SAMPLE "
           "plus USTACK records of the saved stream over its samples; "
           "*snapshot*: USTACK bytes per sample (registers, the copy, padding). "
           "*Lost*: STATS `lost_samples`, and as a share of all samples. "
           "*Kernel path*: STATS `sample_path_ns / sample_path_calls` "
           "(`TPROF_F_PATH_TIMING`: stack walk, snapshot copy and ring write, "
           "emulated ns). *Extra CPU per sample*: the workload's CPU time "
           "over the unprofiled runs just before and after (bracketed), per "
           "sample delivered: everything a sample costs the workload, perf's "
           "included. Medians over runs.\n",
           "| kernel | mode | runs | samples | bytes per sample | snapshot bytes per sample | partial snapshots | lost (median, max) | lost % | kernel path per sample | extra CPU per sample |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    found = False
    for k, rows in kernels.items():
        rows = by_mod(rows, "head")
        for mode in SNAP_MODES:
            rs = select(rows, exp="snap", mode=mode)
            prof = "perf" if mode == "perf-dwarf" else "tprof"
            rs = [r for r in rs if r.get("prof") == prof]
            if not rs:
                continue
            found = True
            n = med([num(r, "records_samples") or num(r, "samples") for r in rs])
            bps = med([num(r, "sample_bytes") / num(r, "records_samples")
                       for r in rs if num(r, "sample_bytes") and num(r, "records_samples")])
            ubps = med([num(r, "ustack_bytes") / num(r, "records_samples")
                        for r in rs if num(r, "ustack_bytes") is not None and num(r, "records_samples")])
            part = med([num(r, "ustack_partial") / num(r, "ustacks")
                        for r in rs if num(r, "ustacks")])
            lost = [num(r, "lost_samples") if prof == "tprof" else num(r, "lost") for r in rs]
            lost = [x or 0 for x in lost]
            lpct = med([(num(r, "lost_samples") or 0) / ((num(r, "samples") or 0) + (num(r, "lost_samples") or 0)) * 100
                        for r in rs if prof == "tprof" and (num(r, "samples") or num(r, "lost_samples"))])
            path = med([num(r, "sample_path_ns") / num(r, "sample_path_calls")
                        for r in rs if num(r, "sample_path_calls")])
            pairs = bracketed(rows, {"exp": "snap", "mode": mode},
                              lambda r, p=prof: r.get("prof") == p)
            extra = med([(num(r, "work_cpu_ns") - b) / num(r, "samples")
                         for r, b in pairs if num(r, "samples")])
            out.append("| %s | %s | %d | %s | %s | %s | %s | %s, %s%s | %s | %s | %s |" % (
                k, mode, len(rs), fmt(n),
                fmt(bps) if prof == "tprof" else "–",
                fmt(ubps) if prof == "tprof" else "–",
                fmt(part * 100 if part is not None else None, "{:.1f}%"),
                fmt(med(lost)), fmt(max(lost)), " (chunks)" if prof == "perf" else "",
                fmt(lpct, "{:.2f}%"),
                fmt(path, "{:.0f} ns"),
                fmt(extra / 1e3 if extra is not None else None, "{:.1f} µs")))
    if not found:
        out.append("| – | not measured | | | | | | | | | |")
    out.append("")
    if unwind_txt and os.path.exists(unwind_txt):
        out += ["tprof-read's unwinding rate (host, not emulated; `bench/unwind-rate.sh`: "
                "the real snapshots `make unit` records with ptrace, repeated to "
                "200,000 samples, replayed with `--input`; the unwinder's own rate "
                "from `-v`, and the whole replay's rate per CPU second, user + "
                "system). The streams were recorded as dwarf sessions record them "
                "(8 KiB from sp; leaf's 1 KiB); the hybrid rows replay each "
                "snapshot cut to the 1024 bytes a hybrid session asks for, and "
                "`qsort hybrid (as recorded)` the 8 KiB ones. Targets: ≥ 500k "
                "samples/s hybrid end to end on every stream (issue 23), "
                "≥ 100k/s dwarf.\n", "```"]
        out += [l.rstrip("\n") for l in open(unwind_txt)]
        out += ["```", ""]
    return out


OFF_HEAD = "## 8. Off-CPU sampling (issue 15)"


def offcpu_section(rows):
    """Benchmark 8 (bench/guest/80-off-cpu.sh): a ping-pong's cost per
    round trip in each mode, and what off-CPU sampling adds per switch in
    events emulation does not distort."""
    out = [OFF_HEAD + "\n",
           "A pipe ping-pong between two threads of one process, pinned to CPU 0 "
           "with tprof-read, profiled at 1 kHz (`bench/guest/80-off-cpu.sh`): "
           "every switch is a wait of a few microseconds, the worst case for a "
           "per-switch cost. *vs unprofiled*: CPU time per round trip against the "
           "unprofiled runs just before and after (median, min … max). *vs cpu "
           "mode*: the median of that, over cpu mode's. Per switch-in of a "
           "profiled thread (STATS `sched_ins`): tprof's hrtimer starts and "
           "cancels on CPU 0 (tracefs hist triggers, as in section 6) and "
           "off-CPU samples, each one stack walk and one self-IPI (irq_work) "
           "(`off_samples` of the saved stream). Off-CPU time is sampled at "
           "1 ms points of each thread's own off-CPU clock, so a wait of a few "
           "microseconds crosses a point only now and then.\n",
           "| mode | runs | CPU per round trip | vs unprofiled | vs cpu mode | timer ops per switch-in | off-CPU walks per switch-in | off-CPU samples |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    group = {"exp": "offcpu"}
    base = [r for r in rows if ok(r) and r.get("exp") == "offcpu" and r.get("case") == "none"]
    if not base:
        return out + ["(no runs)", ""]
    per_rt = lambda r: num(r, "work_cpu_ns") / num(r, "rounds")  # noqa: E731
    out.append("| unprofiled | %d | %s ns | – | – | – | – | – |" % (
        len(base), fmt(med([per_rt(r) for r in base]))))
    got = {}
    for mode in ("cpu", "wall", "off-cpu"):
        pairs = bracketed(rows, group, lambda r, m=mode: r.get("case") == m,
                          is_base=lambda r: r.get("case") == "none")
        if not pairs:
            continue
        got[mode] = med(ratios(pairs))
    for mode in ("cpu", "wall", "off-cpu"):
        rs = [r for r in rows if ok(r) and r.get("exp") == "offcpu" and r.get("case") == mode]
        if not rs or mode not in got:
            continue
        pairs = bracketed(rows, group, lambda r, m=mode: r.get("case") == m,
                          is_base=lambda r: r.get("case") == "none")
        ins = [num(r, "sched_ins") for r in rs]
        tops = med([(num(r, "tp_start0") + num(r, "tp_cancel0")) / num(r, "sched_ins")
                    for r in rs if num(r, "sched_ins")])
        walks = med([num(r, "off_samples") / num(r, "sched_ins")
                     for r in rs if num(r, "sched_ins")])
        vs = got[mode] / got["cpu"] if got.get("cpu") else None
        out.append("| %s | %d | %s ns | %s %s | %s | %s | %s | %s |" % (
            mode, len(rs), fmt(med([per_rt(r) for r in rs])), pct(got[mode]),
            rng(ratios(pairs)), "–" if vs is None else "%+.1f%%" % ((vs - 1) * 100),
            fmt(tops, "{:.4f}"), fmt(walks, "{:.4f}"),
            fmt(med([num(r, "off_samples") for r in rs])) + " of " + fmt(med(ins)) + " switch-ins"))
    out.append("")
    if got.get("wall") and got.get("cpu"):
        extra = got["wall"] / got["cpu"] - 1
        out.append("Target (issue 15): wall mode under 10%% more than cpu mode on the "
                   "ping-pong: %+.1f%% (%s).\n" % (extra * 100, "met" if extra < 0.10 else "not met"))
    return out + [""]


TRUST_HEAD = "## 9. What one user's session may cost (issue 22)"


def trust_section(rows, base_rev=None):
    """Benchmark 9 (bench/guest/90-trust.sh): (a) the sampling budget of
    unprivileged sessions, unbounded against bounded; (b) what a CHILDREN
    session's process table costs an unprofiled ping-pong, per switch,
    before and after the per-bucket filter."""
    out = [TRUST_HEAD + "\n",
           "**(a) The sampling budget (item 3).** The worst request an "
           "unprivileged user can make, on 8 vCPUs: `bench-work spin 8 30 "
           "UNITS` (8 threads, 30-frame stacks) under tprof-read run as uid "
           "65534 (`setpriv`, `/dev/tprof` opened to all), `--period 100us` "
           "(the floor, module parameter `unpriv_min_period_us`), "
           "`--max-frames 512`, `--call-graph dwarf=65528`, with the module "
           "parameter `sample_cpu_percent` at 0 (no bound) and at 25 (the "
           "default), between unprofiled runs (`bench/guest/90-trust.sh`). "
           "*Sampling path per CPU-second*: STATS `sample_path_ns / on_cpu_ns` "
           "(`TPROF_F_PATH_TIMING`: stack walk, snapshot copy and ring write, "
           "in hard-irq context, per second of the workload's own on-CPU time). "
           "Under single-threaded TCG a vCPU's clock runs on while the other "
           "vCPUs are emulated, so these path times are inflated many times "
           "over (the reason the budget trips here); the counts are not. "
           "*Samples per CPU-second*: samples taken (`sample_path_calls`, lost "
           "ones included) per second of the threads' on-CPU time (nominal "
           "10,000: one per period of each thread's CPU time). *Throttles*: THROTTLE records (tprof-read's `throttled:` "
           "line), and the periods' final stretch. *tprof-read CPU*: the "
           "reader's own CPU time (rusage of the tree minus the workload's), "
           "mostly copying and unwinding the 64 KiB snapshots; under "
           "single-threaded TCG its vCPU's turns also run on the spinning "
           "threads' clocks, so it shows in their CPU time too. *Workload CPU*: against the "
           "unprofiled runs just before and after (bracketed; median, min … "
           "max). Medians over runs.\n",
           "| sample_cpu_percent | runs | sampling path per CPU-second | path per sample | samples per CPU-second | lost | throttles (median, max) | final stretch | tprof-read CPU | workload CPU vs unprofiled |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    base = [r for r in rows if ok(r) and r.get("exp") == "budget" and r.get("case") == "none"]
    if not base:
        out += ["(not measured)", ""]
    else:
        out.append("| unprofiled | %d | – | – | – | – | – | – | – | %s ms (median) |" % (
            len(base), fmt(med([num(r, "work_cpu_ns") / 1e6 for r in base]))))
    for case, label in (("free", "0 (no bound)"), ("bound", "25 (default)")):
        rs = [r for r in rows if ok(r) and r.get("exp") == "budget" and r.get("case") == case]
        if not rs:
            continue
        share = med([num(r, "sample_path_ns") / num(r, "on_cpu_ns")
                     for r in rs if num(r, "on_cpu_ns") and num(r, "sample_path_ns") is not None])
        per = med([num(r, "sample_path_ns") / num(r, "sample_path_calls")
                   for r in rs if num(r, "sample_path_calls")])
        rate = med([num(r, "sample_path_calls") / (num(r, "on_cpu_ns") / 1e9)
                    for r in rs if num(r, "on_cpu_ns") and num(r, "sample_path_calls") is not None])
        lost = med([(num(r, "lost_samples") or 0) / num(r, "sample_path_calls") * 100
                    for r in rs if num(r, "sample_path_calls")])
        thr = [num(r, "throttles") or 0 for r in rs]
        st = med([num(r, "stretch") for r in rs if num(r, "stretch")])
        pairs = bracketed(rows, {"exp": "budget"}, lambda r, c=case: r.get("case") == c,
                          is_base=lambda r: r.get("case") == "none")
        rr = ratios(pairs)
        pc = med([profiler_cpu(r) for r in rs])
        out.append("| %s | %d | %s | %s | %s | %s | %s, %s | %s | %s | %s%s |" % (
            label, len(rs), fmt(share * 100 if share is not None else None, "{:.1f}%"),
            fmt(per / 1e3 if per is not None else None, "{:.0f} µs"),
            fmt(rate), fmt(lost, "{:.1f}%"), fmt(med(thr)), fmt(max(thr)),
            fmt(st, "{:.0f}x"), fmt(pc / 1e6 if pc is not None else None, "{:.0f} ms"),
            pct(med(rr)), rng(rr)))
    out.append("")
    out += ["**(b) A CHILDREN session's cost to everyone else (item 3b).** "
            "An *unprofiled* pipe ping-pong between two threads, pinned to CPU 0, "
            "ROUNDS round trips, while root's tprof-read (also on CPU 0) follows "
            "an unrelated idle process tree in launch mode (`--children`, its "
            "default): `bench-work forks N` forks N short-lived children one at "
            "a time, then sleeps. *Fresh*: N = 0 (the table holds the target "
            "alone); *after 10,000 children*: 10,000 slots claimed and "
            "retired (a lookup of a process the table does not hold reads "
            "slots until a never-used one, so dead slots left in the way "
            "lengthen it). *No session*: the "
            "unprofiled runs around them. *Lookups per switch*: calls of the "
            "module's `tprof_procs_find` (a kprobe event, "
            "`p:kprobes/tprof_lookup tprof:tprof_procs_find`, counted with a "
            "hist trigger) over `sched:sched_switch` events, all CPUs, in a "
            "separate run of the same ping-pong (the kprobe's own cost stays "
            "out of the timed runs). *Slots probed*: a second kprobe event at "
            "the head of `tprof_procs_find`'s probe loop (the target of the "
            "function's first jump, from the module's disassembly), one hit "
            "per slot read. *Before* is the module of %s "
            "(`BENCH_BASE`), where every switch of every task probes the "
            "table; *after* this tree's, which first reads the task's bucket "
            "of the table's per-bucket count of live tgids "
            "(`tprof_procs_may_have`) and probes only when it is not 0. Both "
            "in the same boot (`bench.sh` builds the baseline, the script "
            "swaps it in with rmmod and insmod), one module after the other: "
            "10,000 forks take minutes of emulation, so each module has one "
            "session of each kind, with REPS timed and REPS counted runs in "
            "it. *CPU per round trip*: both threads' "
            "CPU time (scheduler clock) over ROUNDS, median; *vs no session*: "
            "against the runs with no session just before and after the "
            "session (bracketed; median, min … max).\n" % (
                "commit " + base_rev if base_rev else "the baseline"),
            "| module | session | runs | CPU per round trip | vs no session | lookups per switch | slots probed per lookup | slots probed per switch | lookups, slots, switches (median run) |",
            "|---|---|---:|---:|---|---:|---:|---:|---:|"]
    per_rt = lambda r: num(r, "work_cpu_ns") / num(r, "rounds")  # noqa: E731
    found = False
    forks = []
    for mod, mlabel in (("base", "before"), ("head", "after")):
        for table, tlabel in (("none", "no session"), ("fresh", "CHILDREN, table fresh"),
                              ("forked", "CHILDREN, after 10,000 children")):
            grp = {"exp": "tables", "mod": mod}
            rt = [r for r in rows if ok(r) and r.get("exp") == "tables" and r.get("mod") == mod
                  and r.get("table") == table and r.get("run") == "time"]
            rc = [r for r in rows if ok(r) and r.get("exp") == "tables" and r.get("mod") == mod
                  and r.get("table") == table and r.get("run") == "count"]
            if not rt and not rc:
                continue
            found = True
            if table == "none":
                vs = "–"
            else:
                pairs = bracketed(rows, dict(grp, run="time"), lambda r, t=table: r.get("table") == t,
                                  is_base=lambda r: r.get("table") == "none")
                rr = ratios(pairs)
                vs = pct(med(rr)) + rng(rr)
            lps = med([num(r, "lk") / num(r, "sw") for r in rc if num(r, "sw")])
            spl = med([num(r, "sl") / num(r, "lk") for r in rc
                       if num(r, "lk") and num(r, "sl") is not None])
            sps = med([num(r, "sl") / num(r, "sw") for r in rc
                       if num(r, "sw") and num(r, "sl") is not None])
            mid = sorted(rc, key=lambda r: num(r, "lk") or 0)
            mid = mid[len(mid) // 2] if mid else None
            out.append("| %s | %s | %d | %s ns | %s | %s | %s | %s | %s |" % (
                mlabel, tlabel, len(rt), fmt(med([per_rt(r) for r in rt])), vs,
                fmt(lps, "{:.3f}"), fmt(spl, "{:.1f}"), fmt(sps, "{:.2f}"),
                "%s, %s, %s" % (fmt(num(mid, "lk")), fmt(num(mid, "sl")), fmt(num(mid, "sw")))
                if mid else "–"))
            fw = med([num(r, "forks_wall_ns") for r in rt if r.get("table") == "forked"])
            if fw:
                forks.append("%s, %s s" % (mlabel, fmt(fw / 1e9)))
    if not found:
        out.append("| – | not measured | | | | | | | |")
    out.append("")
    if forks:
        out.append("The 10,000 children (fork, exit at once, waited for, one at a "
                   "time, while the session follows them; tprof-read reads each "
                   "one's maps) took, in guest wall time: %s.\n" % "; ".join(forks))
    # a blank line before the next section, when this one replaces its old self
    return out + [""]


def replace_section(doc_path, head, section):
    """Put a section into an existing docs/benchmarks.md in place of its
    old one (or before ## Reproduce), leaving the rest."""
    text = open(doc_path).read() if os.path.exists(doc_path) else ""
    body = "\n".join(section)
    if head in text:
        a = text.index(head)
        b = text.find("\n## ", a + len(head))
        text = text[:a] + body + (text[b + 1:] if b >= 0 else "")
    elif "## Reproduce" in text:
        a = text.index("## Reproduce")
        text = text[:a] + body + "\n" + text[a:]
    else:
        text += "\n" + body
    with open(doc_path, "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--guest", required=True)
    ap.add_argument("--reader", required=True)
    ap.add_argument("--kernel", default="?")
    ap.add_argument("--command", default="make bench")
    ap.add_argument("--host-cpu", default="?")
    ap.add_argument("--tree", default="?", help="git describe of the tree")
    ap.add_argument("--doc", required=True)
    ap.add_argument("--png-dir", required=True)
    ap.add_argument("--notes", default=os.path.join(os.path.dirname(__file__), "notes.md"))
    ap.add_argument("--all-kernels", help="build/bench: every kernel's results, for section 6")
    ap.add_argument("--sections", default="full",
                    choices=("full", "switch", "snapshot", "offcpu", "trust"),
                    help="switch, snapshot, offcpu, trust: rewrite only section 6, 7, 8 or 9 of --doc")
    ap.add_argument("--unwind", help="bench/unwind-rate.sh's output, for section 7")
    a = ap.parse_args()
    os.makedirs(a.png_dir, exist_ok=True)
    kernels = kernels_results(a.all_kernels)
    base_revs = set()
    for k in kernels:
        p = os.path.join(a.all_kernels, k, "guest", "base")
        if os.path.exists(p):
            base_revs.add(open(p).read().strip())
    s6 = switch_section(kernels, base_revs, a.all_kernels)
    s7 = snapshot_section(kernels, a.unwind)
    if a.sections == "switch":
        replace_section(a.doc, SWITCH_HEAD, s6)
        return
    if a.sections == "snapshot":
        replace_section(a.doc, SNAP_HEAD, s7)
        return
    s8 = offcpu_section(by_mod(parse(os.path.join(a.guest, "results.txt")), "head"))
    if a.sections == "offcpu":
        replace_section(a.doc, OFF_HEAD, s8)
        return
    bp = os.path.join(a.guest, "base")
    s9 = trust_section(parse(os.path.join(a.guest, "results.txt")),
                       open(bp).read().strip() if os.path.exists(bp) else None)
    if a.sections == "trust":
        replace_section(a.doc, TRUST_HEAD, s9)
        return
    # sections 1-5 are this tree's module (lines of BENCH_BASE's boot carry mod=base)
    rows = by_mod(parse(os.path.join(a.guest, "results.txt")), "head")
    info = {}
    gi = os.path.join(a.guest, "guest-info")
    if os.path.exists(gi):
        for line in open(gi):
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                info[k] = v
    reps = sorted({r.get("rep") for r in rows if r.get("exp") == "spin"})
    clock = ""
    cc = {}
    for tok in info.get("clockcheck", "").split():
        k, _, v = tok.partition("=")
        cc[k] = float(v) if v else 0
    if cc.get("clock_mono_ns") and cc.get("clock_thread_cpu_ns"):
        clock = ("- clock check (`bench-work clock 500`, one pinned thread spinning "
                 "for 500 ms of `CLOCK_MONOTONIC`): thread CPU clock %.2fx, "
                 "getrusage %.2fx the monotonic time" % (
                     cc["clock_thread_cpu_ns"] / cc["clock_mono_ns"],
                     cc.get("clock_rusage_ns", 0) / cc["clock_mono_ns"]))
    failed = [r for r in rows if "failed" in r]
    doc = ["# tprof benchmarks\n",
           "Written by `%s` (bench/bench.sh); do not edit by hand. "
           "Overhead against perf in one QEMU boot, per issue 6.\n" % a.command,
           "- kernel: %s, guest CPU model `%s` (%s vCPUs, QEMU TCG, "
           "`-accel tcg,thread=single`), host CPU `%s`" % (
               a.kernel, info.get("cpu", "?"), info.get("ncpu", "?"), a.host_cpu),
           "- perf: %s; tprof.ko and tprof-read from this tree (%s); default "
           "ring %s bytes per CPU; guest clocksource %s" % (
               info.get("perf", "?"), a.tree, info.get("default_ring", "?"),
               info.get("clocksource", "?")),
           clock,
           "- repetitions: %d per variant for benchmarks 1 and 2, up to 3 for 3 "
           "and 4; an unprofiled run before and after every profiled one; every "
           "figure is a median, every ratio the median of per-run ratios against "
           "the mean of the two unprofiled runs around that run" % len(reps),
           "",
           "**All guest numbers are emulated.** The guest runs under TCG (no KVM "
           "on this host): guest code runs roughly 10x slower than native, and "
           "with single-threaded TCG the 8 vCPUs take turns on one host thread "
           "while the guest clock follows the host's, so a task's CPU time also "
           "grows while other vCPUs (the profiler's reader, for one) run. "
           "The host is also shared with other QEMU guests (other sessions' "
           "test runs), whose load changes the emulation speed from minute to "
           "minute: hence the bracketing, and the min … max spread next to "
           "each ratio. Ratios within one boot are meaningful; absolute times "
           "and ns are emulated, not native figures. CPU time is the guest "
           "scheduler's own accounting (`CLOCK_PROCESS_CPUTIME_ID`, i.e. "
           "sum_exec_runtime, the clock tprof samples by); the guest's wall "
           "clock is not used for any result.\n"]
    if failed:
        doc.append("**%d guest runs failed** (see `build/bench/*/guest/results.txt`).\n" % len(failed))
    s1, chart = spin_section(rows, a.png_dir)
    s1 += irqs_section(rows)
    s2, pp_res, _ = pp_section(rows)
    s3, pts = depth_section(rows, a.png_dir)
    s4, rings = rings_section(rows)
    s5, reader = reader_section(parse(a.reader))
    doc += targets(chart, pp_res, pts, rings, reader)
    if os.path.exists(a.notes):
        doc.append(open(a.notes).read())
    doc += s1 + s2 + s3 + s4 + s5 + s6 + s7 + s8 + s9
    doc.append("## Reproduce\n\n```sh\n%s   # BENCH_REPS=N, BENCH_QUICK=1, "
               "BENCH_KERNEL=6.1, BENCH_BASE=62d288b (section 6's before), BENCH_PERF=0\n```\n\nRaw results: `build/bench/NAME/guest/"
               "results.txt` (one line per run) and `build/bench/NAME/reader.txt`; "
               "the guest cases are `bench/guest/NN-*.sh`.\n" % a.command)
    with open(a.doc, "w") as f:
        f.write("\n".join(doc))


if __name__ == "__main__":
    main()
