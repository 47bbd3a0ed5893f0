#!/usr/bin/env python3
"""BR-0 / BR-H options evaluated on the load sweep, for choosing their defaults.

For each variant (a set of sweep options), runs ./balanceroute sweep on both shared traces,
G = 4, 8, 16, loads 0.6..1.2 (42 workloads) and prints, per BR policy, the geometric mean over
the workloads of its steady-state imbalance relative to jsq and to br0 of the --base variant
(the paper's options by default; lower is better), its throughput relative to jsq, and its worst
workload; then, per trace, brh-survival and brh-exact over that br0, also at loads >= 1.0 with
G >= 8. A variant is judged everywhere, never on one workload.

  benchmarks/sweeps/variants.py                                  # the variants below
  benchmarks/sweeps/variants.py --loads 1.0,1.1 --workers 8,16   # only those workloads
  benchmarks/sweeps/variants.py --base defaults --only "defaults,quantile 0.25"
  benchmarks/sweeps/variants.py --json-dir /tmp/v    # keep every sweep's JSON; one already there is reused
  benchmarks/sweeps/variants.py --superpose          # the load sweep's grid (G/G_min copies per G)

By default each sweep offers every G the trace once (`sweep --no-superpose`): the grid the
variants in docs/results.md were measured on, so the command reproduces that table.

Not a test: it reports figures.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
POLICIES = "jsq,br0,brh-survival,brh-exact,brh-oracle"
VARIANTS = {
    "paper (slots, min)": [],
    "stage1 margin, min": ["--stage1-worker", "margin"],
    "stage1 margin, mean": ["--stage1-worker", "margin", "--horizon-margin", "mean"],
    "stage1 margin, now": ["--stage1-worker", "margin", "--horizon-margin", "now"],
    "stage1 slots, mean": ["--horizon-margin", "mean"],
    # the options after those two, each against the defaults (margin, mean) with it off
    "defaults": ["--stage1-worker", "margin", "--horizon-margin", "mean"],
    "confidence 0.3": ["--confidence", "0.3"],
    "confidence 0.7": ["--confidence", "0.7"],
    "confidence 0.9": ["--confidence", "0.9"],
    # ExactMatch's prompt identity on Mooncake: the leading hash_ids blocks (0 = all); Azure has none
    "prefix blocks 1": ["--prompt-prefix-blocks", "1"],
    "prefix blocks 2": ["--prompt-prefix-blocks", "2"],
    "prefix blocks 8": ["--prompt-prefix-blocks", "8"],
    "prefix blocks all": ["--prompt-prefix-blocks", "0"],
    # admit against slots of requests predicted to end within k steps (BR-H)
    "projected slots 1": ["--projected-slots", "1"],
    "projected slots 4": ["--projected-slots", "4"],
    "projected slots 16": ["--projected-slots", "16"],
    # the predictors' end as a quantile of the remaining steps (0.5, the median, is the default)
    "quantile 0.1": ["--predictor-quantile", "0.1"],
    "quantile 0.25": ["--predictor-quantile", "0.25"],
    "quantile 0.75": ["--predictor-quantile", "0.75"],
    "quantile 0.9": ["--predictor-quantile", "0.9"],
    # survival (and exact-match's fallback) over the latest N completions only (0 = all, the default)
    "window 64": ["--predictor-window", "64"],
    "window 256": ["--predictor-window", "256"],
    "window 1024": ["--predictor-window", "1024"],
    # the two that helped brh-exact, together
    "quantile 0.25 + prefix blocks 1": ["--predictor-quantile", "0.25", "--prompt-prefix-blocks", "1"],
}


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def sweep(launcher, extra, loads, workers, superpose, out):
    # a variant's JSON already in --json-dir is reused: a table can add variants without rerunning the others
    if not os.path.exists(out + ".json"):
        cmd = [launcher, "sweep", "--policies", POLICIES, "--loads", loads, "--workers", workers, "--out", out] + extra
        if not superpose:
            cmd.append("--no-superpose")
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return json.load(open(out + ".json"))


def slug(name):
    return "".join(c if c.isalnum() else "-" for c in name)


def key(run):
    return (os.path.basename(run["trace"]), run["workers"], round(run["load"], 6))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--loads", default="0.6,0.7,0.8,0.9,1.0,1.1,1.2")
    ap.add_argument("--workers", default="4,8,16")
    ap.add_argument("--base", default="paper (slots, min)", help="the variant whose br0 the others are divided by")
    ap.add_argument("--json-dir", default=None)
    ap.add_argument("--only", default=None, help="comma-separated variant names")
    ap.add_argument("--launcher", default=os.path.join(ROOT, "balanceroute"))
    ap.add_argument("--superpose", action="store_true",
                    help="offer every G the same span, as the load sweep does (default: the trace once per G)")
    args = ap.parse_args()
    out_dir = args.json_dir or tempfile.mkdtemp(prefix="variants-")
    os.makedirs(out_dir, exist_ok=True)
    names = list(VARIANTS) if not args.only else args.only.split(",")
    if args.base not in names:
        names.insert(0, args.base)
    docs = {}
    for name in names:
        docs[name] = sweep(args.launcher, VARIANTS[name], args.loads, args.workers, args.superpose,
                            os.path.join(out_dir, slug(name)))
    base = {key(r): {p["policy"]: p for p in r["results"]} for r in docs[args.base]["runs"]}
    print(f"{len(base)} workloads; geometric means of steady-state ratios (worst workload in brackets)")
    print("variant".ljust(24) + "".join(f"{p:>42}" for p in POLICIES.split(",")[1:]))
    print(" " * 24 + "".join(f"{'imb/jsq   imb/br0(base)   tok/s/jsq':>42}" for _ in POLICIES.split(",")[1:]))
    for name in names:
        cells = []
        for p in POLICIES.split(",")[1:]:
            vs_jsq, vs_br0, tput = [], [], []
            for r in docs[name]["runs"]:
                res = {x["policy"]: x for x in r["results"]}
                b = base[key(r)]["br0"]
                vs_jsq.append(res[p]["steadyAvgImbalance"] / res["jsq"]["steadyAvgImbalance"])
                vs_br0.append(res[p]["steadyAvgImbalance"] / b["steadyAvgImbalance"])
                tput.append(res[p]["steadyThroughputTokPerS"] / res["jsq"]["steadyThroughputTokPerS"])
            cells.append(f"{geomean(vs_jsq):.3f} ({max(vs_jsq):.2f}) {geomean(vs_br0):.3f} ({max(vs_br0):.2f}) "
                         f"{geomean(tput):.4f} ({min(tput):.3f})")
        print(name.ljust(24) + "".join(f"{c:>42}" for c in cells), flush=True)
    by_trace(names, docs, base)
    return 0


def by_trace(names, docs, base):
    """Per trace, and at loads >= 1.0 for G >= 8 (the target's cells): brh-survival and brh-exact
    steady-state imbalance over the base's br0, geometric mean (worst), and TPOT p95 over it (worst)."""
    traces = sorted({k[0] for k in base})
    print("\nBR-H with a real predictor over the base's br0, per trace: imbalance, geomean (worst); at loads >= 1.0"
          " and G >= 8 too, and TPOT p95 there (worst)")
    print("variant".ljust(24) + "".join(f"{t.split('-')[0] + ' ' + p:>44}" for t in traces
                                        for p in ("brh-survival", "brh-exact")))
    for name in names:
        cells = []
        for t in traces:
            for p in ("brh-survival", "brh-exact"):
                imb, heavy, tpot = [], [], []
                for r in docs[name]["runs"]:
                    k = key(r)
                    if k[0] != t:
                        continue
                    res = {x["policy"]: x for x in r["results"]}
                    b = base[k]["br0"]
                    ratio = res[p]["steadyAvgImbalance"] / b["steadyAvgImbalance"]
                    imb.append(ratio)
                    if k[2] >= 1.0 and k[1] >= 8:
                        heavy.append(ratio)
                        tpot.append(res[p]["steadyTpotP95Ms"] / b["steadyTpotP95Ms"])
                cell = f"{geomean(imb):.3f} ({max(imb):.2f})"
                if heavy:
                    cell += f"  {geomean(heavy):.3f} ({max(heavy):.2f}) tpot {max(tpot):.3f}"
                cells.append(cell)
        print(name.ljust(24) + "".join(f"{c:>44}" for c in cells), flush=True)


if __name__ == "__main__":
    sys.exit(main())
