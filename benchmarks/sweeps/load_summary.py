#!/usr/bin/env python3
"""The summary of a load sweep in docs/results.md (./balanceroute sweep --out PREFIX): reads PREFIX.json.

  benchmarks/sweeps/load_summary.py docs/load-sweep.json [--loads 1.0,1.1]

Per trace, G and load: br0 against jsq (steady-state imbalance jsq/br0, throughput), each other BR
policy against br0 (imbalance br0/this, TPOT p95 this/br0), and the best BR policy's throughput
over the best classic baseline's. Prints markdown.
"""
import argparse
import json
import os
import sys

CLASSIC = ["random", "round-robin", "p2c", "jsq", "least-tokens", "vllm-ascend"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json")
    ap.add_argument("--loads", default="1.0,1.1")
    args = ap.parse_args()
    loads = [float(x) for x in args.loads.split(",")]
    doc = json.load(open(args.json))
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
        res = {p["policy"]: p for p in r["results"]}
        jsq, br0 = res["jsq"], res["br0"]
        cells = [os.path.basename(r["trace"]).split("-")[0], str(r["workers"]), f"{r['load']:.1f}",
                 f"{jsq['steadyAvgImbalance'] / br0['steadyAvgImbalance']:.2f}x",
                 f"{100 * (br0['steadyThroughputTokPerS'] / jsq['steadyThroughputTokPerS'] - 1):+.1f}%"]
        for p in others:
            x = res[p]
            cells.append(f"{br0['steadyAvgImbalance'] / x['steadyAvgImbalance']:.2f}x, "
                         f"{100 * (x['steadyTpotP95Ms'] / br0['steadyTpotP95Ms'] - 1):+.1f}%")
        best_br = max((p for p in ours if p.startswith("br")), key=lambda p: res[p]["steadyThroughputTokPerS"])
        best_cl = max(CLASSIC, key=lambda p: res[p]["steadyThroughputTokPerS"])
        gain = res[best_br]["steadyThroughputTokPerS"] / res[best_cl]["steadyThroughputTokPerS"] - 1
        cells.append(f"{100 * gain:+.1f}% ({best_br} vs {best_cl})")
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
