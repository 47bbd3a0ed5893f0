#!/usr/bin/env bash
# The soak (issue 12; not CI): 512 concurrent streams through the proxy against the simulated
# cluster for 10 minutes, with proxy and direct probes for the added latency per minute, and the
# runtime JVM's heap after a full GC, open file descriptors and threads at the start and the end.
# It runs benchmarks/proxy-overhead.sh with the Soak load tool: the same cluster (1 prefill
# server, 8 decode ranks, here B=128 so that the probes never wait for a slot), the same runtime,
# the same cleanup. Run it at nice 19 on an otherwise idle machine:
#   nice -n 19 benchmarks/soak.sh                       # about 11 minutes
#   nice -n 19 benchmarks/soak.sh -- --minutes 2        # a shorter one
# The live-heap samples' class histograms go to benchmarks/target/soak/histograms (what grew, by class).
# Options after -- go to Soak: --streams N (512), --minutes M (10), --warmup-seconds S (30), and
# ProxyOverhead's --stream-max-tokens N (128), --latency-max-tokens N (16 for the probes).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tool_args=()
if [[ "${1:-}" == "--" ]]; then shift; tool_args=("$@"); fi
exec "$root/benchmarks/proxy-overhead.sh" --tool Soak --capacity 128 --time-factor 0.01 \
  --logs "$root/benchmarks/target/soak" -- --histogram-dir "$root/benchmarks/target/soak/histograms" "${tool_args[@]}"
