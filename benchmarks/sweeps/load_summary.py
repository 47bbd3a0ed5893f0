#!/usr/bin/env python3
"""The summary of a load sweep in docs/results.md (./balanceroute sweep --out PREFIX): reads PREFIX.json.

  benchmarks/sweeps/load_summary.py target/load-sweep.json [--loads 1.0,1.1]
  benchmarks/sweeps/load_summary.py benchmarks/sweeps/load-sweep.json.gz   # the run docs/ reports

A file ending in .gz is read gzipped: the recorded sweep's JSON is kept so, beside this script,
out of docs/ (1.8 MB of raw samples).

Per trace, G and load: br0 against jsq (steady-state imbalance jsq/br0, throughput), each other BR
policy against br0 (imbalance br0/this, TPOT p95 this/br0), and the best BR policy's throughput
over the best classic baseline's. Prints markdown. With several samples per cell (sweep --samples)
every figure is computed per sample, then reported as the median over the samples; the best-BR
column also gives its range [min, max] and the pair that was best in most samples.
"""
import argparse
import collections
import gzip
import json
import os
import statistics
import sys

CLASSIC = ["random", "round-robin", "p2c", "jsq", "least-tokens", "vllm-ascend"]


def samples(run):
    """Per sample, the results by policy (a sweep before --samples has one: 'results')."""
    return [{p["policy"]: p for p in s["results"]} for s in run.get("samples", [{"results": run["results"]}])]


def best_gain(res, ours):
    best_br = max((p for p in ours if p.startswith("br")), key=lambda p: res[p]["steadyThroughputTokPerS"])
    best_cl = max((p for p in CLASSIC if p in res), key=lambda p: res[p]["steadyThroughputTokPerS"])
    return res[best_br]["steadyThroughputTokPerS"] / res[best_cl]["steadyThroughputTokPerS"] - 1, best_br, best_cl


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json")
    ap.add_argument("--loads", default="1.0,1.1")
    args = ap.parse_args()
    loads = [float(x) for x in args.loads.split(",")]
    with (gzip.open if args.json.endswith(".gz") else open)(args.json, "rt") as f:
        doc = json.load(f)
    runs = [r for r in doc["runs"] if any(abs(r["load"] - l) < 1e-9 for l in loads)]
    if not runs:
        sys.exit("no run at loads " + args.loads)
    policies = [p["policy"] for p in runs[0]["results"]]
    ours = [p for p in policies if p not in CLASSIC]
    others = [p for p in ours if p != "br0"]
    head = ("| trace | G | load | br0 imbalance jsq/br0 | br0 tok/s vs jsq | "
            + " | ".join(f"{p} imbalance br0/this, TPOT p95 vs br0" for p in others)
            + " | best BR vs best classic, tok/s |")
    print(head)
    print("|---|---:|---:|---:|---:|" + "---:|" * len(others) + "---|")
    for r in runs:
        per = samples(r)
        med = lambda f: statistics.median(f(res) for res in per)
        cells = [os.path.basename(r["trace"]).split("-")[0], str(r["workers"]), f"{r['load']:.1f}",
                 f"{med(lambda s: s['jsq']['steadyAvgImbalance'] / s['br0']['steadyAvgImbalance']):.2f}x",
                 f"{100 * (med(lambda s: s['br0']['steadyThroughputTokPerS'] / s['jsq']['steadyThroughputTokPerS']) - 1):+.1f}%"]
        for p in others:
            cells.append(f"{med(lambda s: s['br0']['steadyAvgImbalance'] / s[p]['steadyAvgImbalance']):.2f}x, "
                         f"{100 * (med(lambda s: s[p]['steadyTpotP95Ms'] / s['br0']['steadyTpotP95Ms']) - 1):+.1f}%")
        gains = [best_gain(res, ours) for res in per]
        g = [x[0] for x in gains]
        pair = collections.Counter(f"{b} vs {c}" for _, b, c in gains).most_common(1)[0][0]
        spread = f" [{100 * min(g):+.1f}, {100 * max(g):+.1f}]" if len(g) > 1 else ""
        cells.append(f"{100 * statistics.median(g):+.1f}%{spread} ({pair})")
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
