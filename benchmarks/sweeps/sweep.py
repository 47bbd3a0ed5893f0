#!/usr/bin/env python3
"""Parameter sweeps over the simulator, for choosing BalanceRoute's defaults.

Runs ./balanceroute simulate --json over both shared traces at G = 4, 8, 16 (heavy load:
first 3000 requests, arrivals compressed 40x) and prints, per setting, each policy's average
imbalance and throughput relative to jsq and to br0, plus the geometric mean over the six
workloads, so a setting is judged by how it does everywhere rather than on one workload.

  benchmarks/sweeps/sweep.py brh       # (beta, gamma, H, confidence) for BR-H
  benchmarks/sweeps/sweep.py dispatch  # (S_greedy, R_max) for BR-0

Not a test: it reports figures. Reads the traces from ../shared/traces beside the project
(or --traces DIR).
"""
import argparse
import itertools
import json
import math
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORKLOADS = [("mooncake", "mooncake-conversation.jsonl"), ("azure", "azure2023-conv.csv")]
WORKERS = [4, 8, 16]
BASE = ["--limit", "3000", "--rate-scale", "40"]

GRIDS = {
    "brh": {
        "policies": "jsq,br0,brh-survival,brh-exact,brh-oracle",
        "settings": [
            {"--beta": b, "--gamma": g, "--horizon": h, "--confidence": c}
            for (b, g), h, c in itertools.product(
                [("14.67", "0.64"), ("43", "0.86"), ("8", "0.64"), ("8", "0.86"), ("30", "0.5")],
                ["20", "80"], ["0.5", "0.8"])
        ],
    },
    "dispatch": {
        "policies": "jsq,br0",
        "settings": [
            {"--s-greedy": s, "--r-max": r}
            for s, r in itertools.product(["1", "0", "32", "128"], ["4", "8", "12"])
        ],
    },
}


def simulate(trace, workers, policies, setting, extra):
    cmd = [os.path.join(ROOT, "balanceroute"), "simulate", "--trace", trace, "--workers", str(workers),
           "--policies", policies, "--json"] + BASE + extra
    for k, v in setting.items():
        cmd += [k, v]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return {r["policy"]: r for r in json.loads(out)["results"]}


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("grid", choices=sorted(GRIDS))
    ap.add_argument("--traces", default=os.path.join(os.path.dirname(ROOT), "shared", "traces"))
    ap.add_argument("--prompt-prefix-blocks", default="4",
                    help="Mooncake prompt identity for brh-exact (default 4 hash blocks, as the CLI)")
    args = ap.parse_args()
    grid = GRIDS[args.grid]
    policies = grid["policies"].split(",")
    shown = [p for p in policies if p != "jsq"]
    print("geometric means over the six workloads; per policy: average imbalance, backlogged imbalance")
    print("and throughput, each relative to jsq (lower imbalance and higher throughput are better)")
    print("setting".ljust(58) + "".join(f"{p:>24}" for p in shown))
    print(" " * 58 + "".join(f"{'imb  backlog  tput':>24}" for p in shown))
    for setting in grid["settings"]:
        ratios = {p: ([], [], []) for p in policies}
        for (name, file), g in itertools.product(WORKLOADS, WORKERS):
            extra = ["--prompt-prefix-blocks", args.prompt_prefix_blocks] if name == "mooncake" else []
            res = simulate(os.path.join(args.traces, file), g, grid["policies"], setting, extra)
            for p in policies:
                ratios[p][0].append(res[p]["avgImbalance"] / res["jsq"]["avgImbalance"])
                ratios[p][1].append(res[p]["avgImbalanceBacklogged"] / res["jsq"]["avgImbalanceBacklogged"])
                ratios[p][2].append(res[p]["throughputTokPerS"] / res["jsq"]["throughputTokPerS"])
        label = " ".join(f"{k} {v}" for k, v in setting.items())
        print(label.ljust(58) + "".join(
            f"{geomean(ratios[p][0]):>10.3f} {geomean(ratios[p][1]):>6.3f} {geomean(ratios[p][2]):>6.3f}"
            for p in shown), flush=True)
        print("  worst of the six:".ljust(58) + "".join(
            f"{max(ratios[p][0]):>10.3f} {max(ratios[p][1]):>6.3f} {min(ratios[p][2]):>6.3f}"
            for p in shown), flush=True)


if __name__ == "__main__":
    sys.exit(main())
