#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Section 11 of docs/benchmarks.md (issue 25) from bench/arm64/run.sh's
results: report.py DIR, where DIR holds x86/ and arm64/ (each with
results.txt and run-info). Prints a Markdown table: per arch and mode,
tprof.ko's path per sample (STATS sample_path_ns / sample_path_calls) as
a ratio to fp on the same arch only: the median of each rep's ratio to
that rep's fp run, with their range. Emulated ns are not printed: TCG's
speed differs by arch and by instruction mix, so they compare nothing
across arches. Then what TCG does not distort: bytes per sample written
to the ring (SAMPLE + USTACK records of the saved stream over its
samples), of which snapshot bytes, mean user frames, partial snapshots
and lost samples. The host is shared and loaded, which only ever adds
time, so the ratio of the lowest run of a mode to the lowest fp run is
given too."""
import os
import statistics
import sys

MODES = ["fp", "fp-kernel", "hybrid", "dwarf"]
LABEL = {"fp": "fp", "fp-kernel": "fp + kernel stacks",
         "hybrid": "hybrid (1 KiB)", "dwarf": "dwarf (8 KiB)"}


def runs(path):
    out = []
    with open(path) as f:
        for line in f:
            kv = dict(w.split("=", 1) for w in line.split() if "=" in w)
            if kv.get("exp") == "a64path" and "failed" not in kv:
                out.append(kv)
    return out


def num(kv, k):
    try:
        return float(kv.get(k, 0))
    except ValueError:
        return 0.0


def main():
    d = sys.argv[1]
    print("| arch | mode | runs | samples per run | path per sample, x fp (range) "
          "| lowest run, x fp | bytes per sample | snapshot bytes "
          "| user frames | partial snapshots | lost |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for arch in ("x86", "arm64"):
        p = os.path.join(d, arch, "results.txt")
        if not os.path.exists(p):
            continue
        rs = runs(p)
        per = {}	# (rep, mode) -> path ns per sample
        for kv in rs:
            c = num(kv, "sample_path_calls")
            if c > 0:
                per[(kv["rep"], kv["mode"])] = num(kv, "sample_path_ns") / c
        for mode in MODES:
            m = [kv for kv in rs if kv["mode"] == mode]
            if not m:
                continue
            ns = [per[(kv["rep"], mode)] for kv in m if (kv["rep"], mode) in per]
            ratios = [per[(kv["rep"], mode)] / per[(kv["rep"], "fp")] for kv in m
                      if (kv["rep"], mode) in per and (kv["rep"], "fp") in per]
            n = sum(num(kv, "records_samples") for kv in m)
            sb = sum(num(kv, "sample_bytes") for kv in m)
            ub = sum(num(kv, "ustack_bytes") for kv in m)
            us = sum(num(kv, "ustacks") for kv in m)
            up = sum(num(kv, "ustack_partial") for kv in m)
            fr = sum(num(kv, "mean_user_frames") * num(kv, "records_samples") for kv in m)
            lost = sum(num(kv, "lost_samples") for kv in m)
            alls = sum(num(kv, "samples") for kv in m)
            fps = [v for (_, md), v in per.items() if md == "fp"]
            low = min(ns) / min(fps) if ns and fps else float("nan")
            r = statistics.median(ratios) if ratios else float("nan")
            rng = f"{min(ratios):.2f}–{max(ratios):.2f}" if ratios else "–"
            print(f"| {arch} | {LABEL[mode]} | {len(m)} | {n / len(m):.0f} "
                  f"| {r:.2f} ({rng}) | {low:.2f} "
                  f"| {sb / n:.0f} | {ub / n:.0f} | {fr / n:.1f} "
                  f"| {(f'{100 * up / us:.1f}%' if us else '–')} "
                  f"| {lost:.0f} ({100 * lost / max(alls, 1):.2f}%) |")


if __name__ == "__main__":
    main()
