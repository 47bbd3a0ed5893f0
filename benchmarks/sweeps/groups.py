#!/usr/bin/env python3
"""Decode instances each their own barrier: group-aware br0 against flat br0, jsq-br0 and jsq (docs/fleet.md).

  benchmarks/sweeps/groups.py [--traces A,B] [--loads 1.0,1.1] [--groups 8,8:8,4] [--samples 3]
                              [--copies 2] [--out PREFIX] [--cache DIR]

Per trace, layout (--groups, instances separated by ':'), load and sample it runs, one after the
other (a simulate runs its policies in parallel on the cores):

  ./balanceroute simulate --trace T --groups L --load X --sample K --copies C --policies jsq,br0,jsq-br0 --json
  ./balanceroute simulate ... --policies br0 --policy-view flat --json

Sample K is sweep's: 0 the trace as recorded, K > 0 its requests shuffled over its arrival times;
--copies superposes shuffled copies (as sweep does for a cluster larger than G=8: the same span).
Prints a markdown table of the medians over the samples of the steady-state summed imbalance
(the per-instance means added up) and throughput, and the per-instance imbalance of each rule;
with --out also PREFIX.json (every run's results).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RULES = ["br0", "br0 flat", "jsq-br0", "jsq"]


def simulate(args, trace, layout, load, sample, policies, flat):
    """One simulate's results by rule; kept in --cache (a rerun skips what is there), tried twice."""
    key = f"{os.path.basename(trace)}-{layout}-{load}-{sample}-{policies}-{'flat' if flat else 'groups'}"
    cached = os.path.join(args.cache, key.replace(",", "_") + ".json") if args.cache else None
    if cached and os.path.exists(cached):
        with open(cached) as f:
            return json.load(f)
    cmd = [os.path.join(ROOT, "balanceroute"), "simulate", "--trace", trace, "--groups", layout, "--load", str(load),
           "--sample", str(sample), "--copies", str(args.copies), "--policies", policies, "--json"]
    if flat:
        cmd += ["--policy-view", "flat"]
    for attempt in (1, 2):
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode == 0:
            break
        print(f"groups: {' '.join(cmd)} exited {run.returncode}{', again' if attempt == 1 else ''}", file=sys.stderr)
    run.check_returncode()
    res = {("br0 flat" if flat else r["policy"]): r for r in json.loads(run.stdout)["results"]}
    if cached:
        os.makedirs(args.cache, exist_ok=True)
        with open(cached, "w") as f:
            json.dump(res, f)
    return res


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--traces", default="../shared/traces/azure2023-conv.csv,../shared/traces/mooncake-conversation.jsonl")
    p.add_argument("--loads", default="1.0,1.1")
    p.add_argument("--groups", default="8,8:8,4")
    p.add_argument("--samples", type=int, default=3)
    p.add_argument("--copies", type=int, default=2)
    p.add_argument("--out")
    p.add_argument("--cache", help="keep each simulate's results in this directory and reuse them")
    args = p.parse_args()
    runs = []
    started = time.time()
    for trace in args.traces.split(","):
        for layout in args.groups.split(":"):
            for load in [float(x) for x in args.loads.split(",")]:
                samples = []
                for k in range(args.samples):
                    res = simulate(args, trace, layout, load, k, "jsq,br0,jsq-br0", False)
                    res.update(simulate(args, trace, layout, load, k, "br0", True))
                    samples.append(res)
                    print(f"groups: {os.path.basename(trace)} {layout} load {load} sample {k} done"
                          f" ({time.time() - started:.0f} s)", file=sys.stderr)
                runs.append({"trace": trace, "groups": layout, "load": load, "samples": samples})
    print(table(runs))
    if args.out:
        with open(args.out + ".json", "w") as f:
            json.dump({"copies": args.copies, "runs": runs}, f, indent=1)


def median(run, rule, key):
    return statistics.median(s[rule][key] for s in run["samples"])


def table(runs):
    """Medians over the samples; the verdict: which rule beats group-aware br0 on imbalance or throughput."""
    lines = ["| trace | instances | load | " + " | ".join(f"{r} imbalance" for r in RULES) + " | "
             + " | ".join(f"{r} tok/s" for r in RULES) + " | br0 no worse than all? | per instance, br0 / flat / jsq-br0 / jsq |",
             "|---|---|---:|" + "---:|" * (2 * len(RULES)) + "---|---|"]
    for run in runs:
        imb = {r: median(run, r, "steadyAvgImbalance") for r in RULES}
        tok = {r: median(run, r, "steadyThroughputTokPerS") for r in RULES}
        per = " / ".join("+".join(f"{statistics.median(s[r]['steadyGroupImbalance'][i] for s in run['samples']):,.0f}"
                                  for i in range(len(run["samples"][0][r]["steadyGroupImbalance"]))) for r in RULES)
        worse = [f"{r} imbalance {imb['br0'] / imb[r]:.2f}x lower" for r in RULES[1:] if imb[r] < imb["br0"]]
        worse += [f"{r} tok/s {100 * (tok[r] / tok['br0'] - 1):+.2f}%" for r in RULES[1:] if tok[r] > tok["br0"]]
        verdict = "yes" if not worse else "no: " + ", ".join(worse)
        lines.append(f"| {os.path.basename(run['trace']).split('-')[0]} | {run['groups']} | {run['load']:.1f} | "
                     + " | ".join(f"{imb[r]:,.0f}" for r in RULES) + " | "
                     + " | ".join(f"{tok[r]:,.0f}" for r in RULES) + f" | {verdict} | {per} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
