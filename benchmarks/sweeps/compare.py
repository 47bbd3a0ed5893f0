#!/usr/bin/env python3
"""The comparison tables of docs/results.md: every policy on both shared traces at G = 4, 8, 16.

Heavy load: arrivals compressed 40x and 375 requests per worker (--limit 375*G), so every
cluster size spends the same share of its steps backlogged. Prints Markdown, with the command
that reproduces each table. Reads the traces from ../shared/traces beside the project.

  benchmarks/sweeps/compare.py > /tmp/tables.md
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRACES = os.path.join(os.path.dirname(ROOT), "shared", "traces")
WORKLOADS = [("Mooncake conversation", "mooncake-conversation.jsonl"), ("Azure 2023 conversation", "azure2023-conv.csv")]
BASELINES = {"random", "round-robin", "p2c", "jsq", "least-tokens", "vllm-ascend"}


def main():
    for title, file in WORKLOADS:
        for g in (4, 8, 16):
            args = ["simulate", "--trace", "../shared/traces/" + file, "--workers", str(g),
                    "--limit", str(375 * g), "--rate-scale", "40"]
            out = subprocess.run([os.path.join(ROOT, "balanceroute")] + args + ["--json"], cwd=ROOT,
                                 check=True, capture_output=True, text=True).stdout
            rows = json.loads(out)["results"]
            jsq = next(r for r in rows if r["policy"] == "jsq")
            print(f"**{title}, G={g}** (`./balanceroute {' '.join(args)}`)\n")
            print("| policy | avg imbalance | jsq/this | backlogged imbalance | jsq/this | tok/s | vs jsq "
                  "| TPOT p95 ms | TTFT p95 s |")
            print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
            for r in rows:
                print(f"| {r['policy']} | {r['avgImbalance']:,.0f} | {jsq['avgImbalance'] / r['avgImbalance']:.2f}x "
                      f"| {r['avgImbalanceBacklogged']:,.0f} "
                      f"| {jsq['avgImbalanceBacklogged'] / r['avgImbalanceBacklogged']:.2f}x "
                      f"| {r['throughputTokPerS']:,.0f} | {100 * (r['throughputTokPerS'] / jsq['throughputTokPerS'] - 1):+.1f}% "
                      f"| {r['tpotP95Ms']:.1f} | {r['ttftP95S']:.1f} |")
            best_base = max((r for r in rows if r["policy"] in BASELINES), key=lambda r: r["throughputTokPerS"])
            best_br = max((r for r in rows if r["policy"] not in BASELINES), key=lambda r: r["throughputTokPerS"])
            gain = 100 * (best_br["throughputTokPerS"] / best_base["throughputTokPerS"] - 1)
            print(f"\nBest BR policy over best baseline: {best_br['policy']} vs {best_base['policy']}, "
                  f"{gain:+.1f}% tok/s.\n", flush=True)


if __name__ == "__main__":
    sys.exit(main())
