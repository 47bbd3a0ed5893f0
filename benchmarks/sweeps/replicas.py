#!/usr/bin/env python3
"""The "Several proxies" tables of docs/results.md: N proxy replicas in front of one G=64 decode tier.

br0 on the whole Mooncake conversation trace (12,031 requests, 188 per worker) with arrivals
compressed 320x: the G=8 headline's 40x times 8 for 8 times the workers, so each worker gets
about the same arrivals per second as there (17.0 vs 15.2 requests/s). The dispatcher for N in
{1, 2, 4, 8, 16} and sync delay D in {0, 1, 5, 20, 100} ms, plus D = 500 and 2000 ms (past one
decode step); gossip and independent at a few (N, D) for contrast. Ratios are to N=1, which
ignores D; a single proxy at rate scales 300..340 gives the noise floor. Prints Markdown with the command of every kind of run. Reads the trace from
../shared/traces beside the project (or --traces DIR).

  benchmarks/sweeps/replicas.py > /tmp/replicas.md
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BASE = ["--workers", "64", "--rate-scale", "320", "--policies", "br0"]
REPLICAS = [1, 2, 4, 8, 16]
DELAYS = ["0", "1", "5", "20", "100"]
LONG_DELAYS = ["500", "2000"]
NOISE_RATE_SCALES = ["300", "310", "330", "340"]
CONTRAST = [("gossip", 2, "5"), ("gossip", 4, "5"), ("gossip", 8, "0"), ("gossip", 8, "1"), ("gossip", 8, "5"),
            ("gossip", 8, "100"), ("gossip", 16, "5"), ("independent", 2, "0"), ("independent", 4, "0"),
            ("independent", 8, "0"), ("independent", 16, "0")]


def simulate(trace, mode, n, d, base=BASE):
    args = ["simulate", "--trace", trace] + base + ["--replicas", str(n), "--sync-delay-ms", d, "--cluster-mode", mode]
    out = subprocess.run([os.path.join(ROOT, "balanceroute")] + args + ["--json"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["results"][0], args


def cell(value, ref, digits):
    return f"{value:,.0f} ({value / ref:.{digits}f})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", default=os.path.join(os.path.dirname(ROOT), "shared", "traces"))
    trace = os.path.join(parser.parse_args().traces, "mooncake-conversation.jsonl")

    one, one_args = simulate(trace, "dispatcher", 1, "0")
    grid = {(n, d): one if n == 1 else simulate(trace, "dispatcher", n, d)[0]
            for n in REPLICAS for d in DELAYS + LONG_DELAYS}
    print("`./balanceroute " + " ".join(one_args).replace(trace, "../shared/traces/mooncake-conversation.jsonl")
          + "`, N and D varied.\n")
    for title, key, digits in [("average imbalance (tokens)", "avgImbalance", 2),
                               ("backlogged imbalance (tokens)", "avgImbalanceBacklogged", 2),
                               ("throughput (tok/s)", "throughputTokPerS", 3)]:
        print(f"**dispatcher, {title}; in brackets, the ratio to N=1** (N=1 has nothing to delay: one run)\n")
        print("| N | " + " | ".join(f"D={d} ms" for d in DELAYS + LONG_DELAYS) + " |")
        print("|---:|" + "---:|" * len(DELAYS + LONG_DELAYS))
        for n in REPLICAS:
            print(f"| {n} | " + " | ".join(cell(grid[(n, d)][key], one[key], digits) for d in DELAYS + LONG_DELAYS) + " |")
        print()
    over = sum(r["overCapacityPlacements"] + r["engineQueuedSteps"] for r in grid.values())
    print(f"Over-capacity placements and engine-queued steps over all dispatcher runs: {over}.\n")

    print("**For contrast: gossip and independent** (ratios to the dispatcher's N=1)\n")
    print("| mode | N | D ms | avg imbalance | ratio | backlogged imbalance | ratio | tok/s | ratio | TTFT p95 s "
          "| over-capacity placements | engine-queued steps |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    rows = [("dispatcher", 8, "5", grid[(8, "5")]), ("dispatcher", 16, "5", grid[(16, "5")])]
    rows += [(m, n, d, simulate(trace, m, n, d)[0]) for m, n, d in CONTRAST]
    print(f"| (one proxy) | 1 | - | {one['avgImbalance']:,.0f} | 1.00 | {one['avgImbalanceBacklogged']:,.0f} | 1.00 "
          f"| {one['throughputTokPerS']:,.0f} | 1.000 | {one['ttftP95S']:.1f} | {one['overCapacityPlacements']} "
          f"| {one['engineQueuedSteps']} |")
    jsq = simulate(trace, "dispatcher", 1, "0", [x if x != "br0" else "jsq" for x in BASE])[0]
    rows.insert(0, ("(one proxy, jsq)", 1, "-", jsq))
    for m, n, d, r in rows:
        print(f"| {m} | {n} | {d} | {r['avgImbalance']:,.0f} | {r['avgImbalance'] / one['avgImbalance']:.2f} "
              f"| {r['avgImbalanceBacklogged']:,.0f} "
              f"| {r['avgImbalanceBacklogged'] / one['avgImbalanceBacklogged']:.2f} "
              f"| {r['throughputTokPerS']:,.0f} | {r['throughputTokPerS'] / one['throughputTokPerS']:.3f} "
              f"| {r['ttftP95S']:.1f} | {r['overCapacityPlacements']} | {r['engineQueuedSteps']} |")
    print(f"\nSteps: {one['steps']} at N=1, {one['backloggedSteps']} of them backlogged; "
          f"mean step {1000 * one['makespanS'] / one['steps']:.0f} ms.\n")

    # how much a single proxy's figures move when the arrivals move a little: the noise floor
    spread = [simulate(trace, "dispatcher", 1, "0", [x if x != "320" else rs for x in BASE])[0]
              for rs in NOISE_RATE_SCALES]
    print(f"One proxy at --rate-scale {', '.join(NOISE_RATE_SCALES)} instead of 320, ratios to 320: ", end="")
    print("; ".join(f"{label} {min(r[key] for r in spread) / one[key]:.3f}..{max(r[key] for r in spread) / one[key]:.3f}"
                    for label, key in [("average imbalance", "avgImbalance"),
                                       ("backlogged imbalance", "avgImbalanceBacklogged"),
                                       ("throughput", "throughputTokPerS")]) + ".")


if __name__ == "__main__":
    sys.exit(main())
