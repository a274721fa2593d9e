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


def paired(rows, match, key, prof, base="none"):
    """Per-rep ratio rows[prof][key] / rows[base][key], median over reps."""
    by = defaultdict(dict)
    for r in rows:
        if ok(r) and all(r.get(k) == v for k, v in match.items()):
            by[r.get("rep")][r["prof"] + ":" + r["hz"]] = r
    out = []
    for rep, d in by.items():
        b = [v for k, v in d.items() if k.startswith(base + ":")]
        p = d.get(prof)
        if b and p and num(b[0], key) and num(p, key) is not None:
            out.append(num(p, key) / num(b[0], key))
    return med(out)


def select(rows, **match):
    return [r for r in rows if ok(r) and all(r.get(k) == str(v) for k, v in match.items())]


def profiler_cpu(r):
    t, w = num(r, "tree_cpu_ns"), num(r, "work_cpu_ns")
    return None if t is None or w is None else t - w


# ---------------------------------------------------------------- spin

def spin_section(rows, pngdir):
    out = ["## 1. CPU-bound program, 30-frame stacks\n",
           "`bench-work spin THREADS 30 UNITS`: fixed work per thread at a stack "
           "depth of 30 frames. *Work CPU* is the workload's own getrusage "
           "user+sys (the guest kernel's accounting, which charges the sampling "
           "interrupt to the interrupted thread: this kernel has no "
           "`CONFIG_IRQ_TIME_ACCOUNTING`); *profiler CPU* is the CPU time of the "
           "profiler process (tree minus workload), as % of the unprofiled work. "
           "*vs perf* is tprof's work CPU divided by perf's at the same rate. "
           "*per sample* is (profiled work CPU - unprofiled work CPU) / samples.\n",
           "| threads | rate | profiler | samples | work CPU vs unprofiled | vs perf | wall vs unprofiled | profiler CPU | per sample |",
           "|---:|---:|---|---:|---:|---:|---:|---:|---:|"]
    chart = defaultdict(dict)
    for t in ("1", "8"):
        base = select(rows, exp="spin", threads=t, prof="none")
        bw = med([num(r, "work_cpu_ns") for r in base])
        if bw is None:
            continue
        out.append("| %s | – | unprofiled | – | %s ms (median) | – | %s ms wall | – | – |" % (
            t, fmt(bw / 1e6), fmt(med([num(r, "work_wall_ns") / 1e6 for r in base]))))
        for hz in HZS:
            for prof in ("tprof", "perf"):
                rs = select(rows, exp="spin", threads=t, prof=prof, hz=hz)
                if not rs:
                    continue
                m = {"exp": "spin", "threads": t}
                r_cpu = paired(rows, m, "work_cpu_ns", "%s:%d" % (prof, hz))
                r_wall = paired(rows, m, "work_wall_ns", "%s:%d" % (prof, hz))
                vs_perf = paired_hz(rows, m, hz) if prof == "tprof" else None
                samples = med([num(r, "samples") for r in rs])
                pcpu = med([profiler_cpu(r) for r in rs])
                wcpu = med([num(r, "work_cpu_ns") for r in rs])
                per = (wcpu - bw) / samples if samples and wcpu else None
                chart[(prof, t)][hz] = r_cpu
                out.append("| %s | %s Hz | %s | %s | %s | %s | %s | %s | %s |" % (
                    t, hz, prof, fmt(samples), pct(r_cpu),
                    "–" if vs_perf is None else "%.3f" % vs_perf, pct(r_wall),
                    fmt(pcpu / bw * 100 if pcpu is not None else None, "{:.1f}%"),
                    fmt(per / 1e3 if per is not None else None, "{:.1f} µs")))
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
        ax.set_xlabel("sampling rate per thread (CPU time)")
        ax.set_ylabel("workload CPU time vs unprofiled (%)")
        ax.set_title("Slowdown of a CPU-bound program, 30-frame stacks (TCG guest)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(pngdir, "slowdown.png"), dpi=100)
        plt.close(fig)
        out.append("![slowdown vs sampling rate](benchmarks/slowdown.png)\n")
    return out, chart


def paired_hz(rows, match, hz):
    """Per-rep tprof/perf work CPU at one rate."""
    by = defaultdict(dict)
    for r in rows:
        if ok(r) and all(r.get(k) == v for k, v in match.items()) and r.get("hz") == str(hz):
            by[r.get("rep")][r["prof"]] = num(r, "work_cpu_ns")
    return med([d["tprof"] / d["perf"] for d in by.values()
                if d.get("tprof") and d.get("perf")])


# ---------------------------------------------------------------- pingpong

def pp_section(rows):
    out = ["## 2. Context switches: pipe ping-pong\n",
           "Both ends pinned to CPU 0; CPU time (getrusage of both ends) per round "
           "trip (two context switches). *Unrelated*: two processes ping-pong, "
           "unprofiled, while the profiler profiles a sleeping process "
           "(`bench-work idle`): what the probe costs everyone else. *Self*: "
           "the ping-pong's two threads are the profiled process, at 1 kHz "
           "(tprof follows a process's threads, not its forks, so both ends "
           "are threads of one process here).\n",
           "| case | profiler | CPU per round trip | vs unprofiled | vs perf |",
           "|---|---|---:|---:|---:|"]
    un = [r for r in rows if ok(r) and r.get("exp") == "pp-unrelated"]
    res = {}
    for bg in ("none", "tprof", "perf"):
        rs = [r for r in un if r.get("bg") == bg]
        if rs:
            res[bg] = med([num(r, "work_cpu_ns") / num(r, "rounds") for r in rs])
    by = defaultdict(dict)
    for r in un:
        by[r["rep"]][r["bg"]] = num(r, "work_cpu_ns") / num(r, "rounds")
    for bg in ("none", "tprof", "perf"):
        if bg not in res:
            continue
        ratio = med([d[bg] / d["none"] for d in by.values() if bg in d and "none" in d])
        vsp = med([d[bg] / d["perf"] for d in by.values() if bg in d and "perf" in d]) \
            if bg == "tprof" else None
        out.append("| unrelated (proc) | %s | %s ns | %s | %s |" % (
            "none" if bg == "none" else bg + " (other process)", fmt(res[bg]),
            "–" if bg == "none" else pct(ratio), "–" if vsp is None else "%.3f" % vsp))
    self_rows = [r for r in rows if ok(r) and r.get("exp") == "pp-self"]
    by = defaultdict(dict)
    for r in self_rows:
        by[r["rep"]][r["prof"]] = num(r, "work_cpu_ns") / num(r, "rounds")
    for prof in ("none", "tprof", "perf"):
        vals = [d[prof] for d in by.values() if prof in d]
        if not vals:
            continue
        ratio = med([d[prof] / d["none"] for d in by.values() if prof in d and "none" in d])
        vsp = med([d[prof] / d["perf"] for d in by.values() if prof in d and "perf" in d]) \
            if prof == "tprof" else None
        out.append("| self (threads, 1 kHz) | %s | %s ns | %s | %s |" % (
            prof, fmt(med(vals)), "–" if prof == "none" else pct(ratio),
            "–" if vsp is None else "%.3f" % vsp))
    out.append("")
    return out, res, by


# ---------------------------------------------------------------- depth

def depth_section(rows, pngdir):
    out = ["## 3. Per-sample kernel cost by stack depth\n",
           "One thread at 10 kHz, `--max-frames 512`. *Sampling path* is tprof.ko's "
           "own measurement, STATS `sample_path_ns / sample_path_calls` (from the "
           "STATS record of `--save-raw`), in emulated ns. *CPU per sample* is "
           "the workload's extra CPU time per sample against the unprofiled run "
           "(includes timer interrupt entry/exit, cache effects and, under TCG, "
           "time the reader's vCPU took from this one): the only per-sample "
           "figure available for perf too. perf's stacks stop at "
           "`kernel.perf_event_max_stack` (127).\n",
           "| depth | user frames (mean) | tprof sampling path | tprof CPU per sample | perf CPU per sample | tprof / perf |",
           "|---:|---:|---:|---:|---:|---:|"]
    depths = sorted({int(r["depth"]) for r in rows if r.get("exp") == "depth"})
    pts = {"path": {}, "tprof": {}, "perf": {}}
    for d in depths:
        base = med([num(r, "work_cpu_ns") for r in select(rows, exp="depth", depth=d, prof="none")])
        tp = select(rows, exp="depth", depth=d, prof="tprof")
        pf = select(rows, exp="depth", depth=d, prof="perf")
        path = med([num(r, "sample_path_ns") / num(r, "sample_path_calls")
                    for r in tp if num(r, "sample_path_calls")])
        frames = med([num(r, "mean_user_frames") for r in tp])

        def per(rs):
            w, s = med([num(r, "work_cpu_ns") for r in rs]), med([num(r, "samples") for r in rs])
            return (w - base) / s if base and w and s else None
        ct, cp = per(tp), per(pf)
        pts["path"][d], pts["tprof"][d], pts["perf"][d] = path, ct, cp
        out.append("| %d | %s | %s ns | %s ns | %s ns | %s |" % (
            d, fmt(frames, "{:.1f}"), fmt(path), fmt(ct), fmt(cp),
            "%.2f" % (ct / cp) if ct and cp and cp > 0 else "–"))
    out.append("")
    if depths:
        fig, ax = plt.subplots(figsize=(7, 4))
        for k, lab, col, ls in (("path", "tprof sampling path (STATS)", "tab:green", "-"),
                                ("tprof", "tprof CPU per sample", "tab:green", "--"),
                                ("perf", "perf CPU per sample", "tab:blue", "--")):
            xs = [d for d in depths if pts[k].get(d) is not None]
            ax.plot(xs, [pts[k][d] / 1e3 for d in xs], marker="o", color=col,
                    linestyle=ls, label=lab)
        ax.set_xscale("log")
        ax.set_xlabel("user stack depth (frames)")
        ax.set_ylabel("µs per sample (emulated)")
        ax.set_title("Per-sample cost by stack depth, 10 kHz (TCG guest)")
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
           "| profiler | samples | lost samples (median, max) | lost % | reader CPU | reader / workload CPU | work CPU vs unprofiled |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    res = {}
    for prof in ("tprof", "perf"):
        rs = select(rows, exp="rings", prof=prof)
        if not rs:
            continue
        s = med([num(r, "samples") for r in rs])
        lost = [num(r, "lost") or 0 for r in rs]
        pc = med([profiler_cpu(r) for r in rs])
        wc = med([num(r, "work_cpu_ns") for r in rs])
        ratio = paired(rows, {"exp": "rings"}, "work_cpu_ns", prof + ":10000")
        res[prof] = (s, med(lost), max(lost))
        out.append("| %s | %s | %s, %s%s | %s | %s ms | %s | %s |" % (
            prof, fmt(s), fmt(med(lost)), fmt(max(lost)),
            " (chunks)" if prof == "perf" else "",
            fmt(med(lost) / (s + med(lost)) * 100 if s and prof == "tprof" else None, "{:.2f}%"),
            fmt(pc / 1e6 if pc is not None else None),
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
    if "tprof" in pp_res and "none" in pp_res:
        r = pp_res["tprof"] / pp_res["none"]
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--guest", required=True)
    ap.add_argument("--reader", required=True)
    ap.add_argument("--kernel", default="?")
    ap.add_argument("--command", default="make bench")
    ap.add_argument("--host-cpu", default="?")
    ap.add_argument("--doc", required=True)
    ap.add_argument("--png-dir", required=True)
    ap.add_argument("--notes", default=os.path.join(os.path.dirname(__file__), "notes.md"))
    a = ap.parse_args()
    os.makedirs(a.png_dir, exist_ok=True)
    rows = parse(os.path.join(a.guest, "results.txt"))
    info = {}
    gi = os.path.join(a.guest, "guest-info")
    if os.path.exists(gi):
        for line in open(gi):
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                info[k] = v
    reps = sorted({r.get("rep") for r in rows if r.get("exp") == "spin"})
    failed = [r for r in rows if "failed" in r]
    doc = ["# tprof benchmarks\n",
           "Written by `%s` (bench/bench.sh); do not edit by hand. "
           "Overhead against perf in one QEMU boot, per issue 6.\n" % a.command,
           "- kernel: %s, guest CPU model `%s` (%s vCPUs, QEMU TCG, "
           "`-accel tcg,thread=single`), host CPU `%s`" % (
               a.kernel, info.get("cpu", "?"), info.get("ncpu", "?"), a.host_cpu),
           "- perf: %s; tprof-read from this tree; default ring %s per CPU" % (
               info.get("perf", "?"), info.get("default_ring", "?")),
           "- repetitions: %d per variant for benchmark 1 (up to 3 for 3 and 4); "
           "every figure is a median, ratios are medians of per-repetition "
           "ratios against the unprofiled run of the same repetition" % len(reps),
           "",
           "**All guest numbers are emulated.** The guest runs under TCG (no KVM "
           "on this host): guest code runs roughly 10x slower than native, and "
           "with single-threaded TCG the 8 vCPUs take turns on one host thread "
           "while the guest clock follows the host's, so a task's CPU time also "
           "grows while other vCPUs (the profiler's reader, for one) run. "
           "Ratios within one boot are meaningful; absolute times and ns are "
           "not native figures. CPU time is the guest kernel's own accounting "
           "(getrusage); wall-clock ratios are shown but are noisier.\n"]
    if failed:
        doc.append("**%d guest runs failed** (see `build/bench/*/guest/results.txt`).\n" % len(failed))
    s1, chart = spin_section(rows, a.png_dir)
    s2, pp_res, _ = pp_section(rows)
    s3, pts = depth_section(rows, a.png_dir)
    s4, rings = rings_section(rows)
    s5, reader = reader_section(parse(a.reader))
    doc += targets(chart, pp_res, pts, rings, reader)
    if os.path.exists(a.notes):
        doc.append(open(a.notes).read())
    doc += s1 + s2 + s3 + s4 + s5
    doc.append("## Reproduce\n\n```sh\n%s   # BENCH_REPS=N, BENCH_QUICK=1, "
               "BENCH_KERNEL=6.1\n```\n\nRaw results: `build/bench/NAME/guest/"
               "results.txt` (one line per run) and `build/bench/NAME/reader.txt`; "
               "the guest cases are `bench/guest/NN-*.sh`.\n" % a.command)
    with open(a.doc, "w") as f:
        f.write("\n".join(doc))


if __name__ == "__main__":
    main()
