#!/usr/bin/env bash
# Side by side (issue 11): on one simulated cluster with near-zero step time, in one run, the
# client doing the two hops itself (direct), BalanceRoute (./balanceroute run) and, with --peer,
# vllm-ascend's PD proxy; runs org.balanceroute.benchmarks.SideBySide and prints its tables; stops
# every process it started on exit, on failure and on Ctrl-C. Not run by CI. See
# benchmarks/README.md, "side-by-side.sh".
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tool=side-by-side
# 8,192 streams on a cluster of 512 slots: the rest wait in the router's prompt pool, beyond the
# distribution's maxPoolDepth (4,096, which would refuse them with 429); --max-pool-depth changes it
pool_depth=16384
# the cluster's one prefill server answers in microseconds, so the connector's budget per prefill
# instance (64) would cap the proxy at 64 prefills per round trip (measured: 3,700 prefills queued,
# the pool empty, a third of the decode slots idle at 4,096 streams) where direct and the peer send
# every prefill at once; --prefill-in-flight changes it
prefill_in_flight=1024
source "$root/benchmarks/lib/harness.sh"

peer_port=8410
chart_default="$root/benchmarks/target/side-by-side/side-by-side.png"
python=/usr/bin/python3
[[ -x "$python" ]] || python=python3

usage() {
  cat <<USAGE
Usage: benchmarks/side-by-side.sh [--peer FILE] [--json FILE] [options] [-- SideBySide options]

Starts ./balanceroute sim-cluster (1 prefill server, 8 decode ranks), ./balanceroute run (its
connector pointed at that cluster; the distribution's config/ restored on exit) and, with --peer,
vllm-ascend's PD proxy on the same cluster, then measures each path: added latency at
concurrency 1 (each proxy's first 1,000 requests, then warm after 60 s of load); relayed tokens/s
at 64, 256, 1,024, 4,096 and 8,192 streams with, per point, the proxy process's CPU and context
switches per token, its threads, open files and live heap with the streams open, the engine's and
the load client's CPU per token; requests/s and added latency of 8-token requests at 64 and 512;
and the engine-measured imbalance of a replay through each. Draws tokens/s and CPU per token
against streams (--chart). About 25 minutes. Raises the open-files limit as far as allowed.

Options:
  --peer FILE          vllm-ascend's examples/disaggregated_prefill_v1/load_balance_proxy_server_example.py
                       (not shipped here), run by benchmarks/peer/run_peer_proxy.py with $python
  --json FILE          also write the figures there: {"throughput": [...], "shortRequests": [...],
                       "latency": [...], "idle": [...]}
  --chart FILE         the PNG of tokens/s and CPU per 100k tokens against streams (${chart_default#"$root/"})
  --peer-port N        the peer's port ($peer_port)
  --python PATH        the interpreter for the peer, with fastapi, httpx, uvicorn ($python)
$(harness_usage)
  -h, --help
Everything after -- goes to SideBySide (e.g. -- --duration-seconds 5 --warm-load-seconds 10);
-- --help lists those options.
Set MAVEN_OPTS (e.g. -Dmaven.repo.local=...) for the builds it may need.
USAGE
}

peer=""
json=""
chart="$chart_default"
tool_args=()
while [[ $# -gt 0 ]]; do
  if harness_option "$@"; then shift "$harness_shift"; continue; fi
  case "$1" in
    --peer) need "$@"; peer="$2"; shift 2 ;;
    --json) need "$@"; json="$2"; shift 2 ;;
    --chart) need "$@"; chart="$2"; shift 2 ;;
    --peer-port) need "$@"; peer_port="$2"; shift 2 ;;
    --python) need "$@"; python="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; tool_args=("$@"); break ;;
    *) echo "$tool: unknown option '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
harness_setup
number --peer-port "$peer_port" 1 65535
if [[ -n "$peer" ]]; then
  [[ -f "$peer" ]] || { echo "$tool: --peer $peer: no such file" >&2; exit 2; }
  peer="$(cd "$(dirname "$peer")" && pwd)/$(basename "$peer")"
  "$python" -c 'import fastapi, httpx, uvicorn' 2>/dev/null \
    || { echo "$tool: $python cannot import fastapi, httpx and uvicorn (Debian: python3-fastapi python3-httpx python3-uvicorn)" >&2; exit 2; }
  harness_free_ports "$peer_port"
else
  harness_free_ports
fi
if [[ -n "$json" ]]; then json="$(mkdir -p "$(dirname "$json")" && cd "$(dirname "$json")" && pwd)/$(basename "$json")"; fi
chart="$(mkdir -p "$(dirname "$chart")" && cd "$(dirname "$chart")" && pwd)/$(basename "$chart")"
harness_build_tool
"$root/balanceroute" replay --help >/dev/null # builds the replayer now, not between two measurements
harness_start_cluster_and_runtime

peer_args=()
if [[ -n "$peer" ]]; then
  decode_ports=()
  for g in 0 1 2 3 4 5 6 7; do decode_ports+=("$((port_base + 100 + g))"); done
  start vllm-ascend-proxy "$python" "$root/benchmarks/peer/run_peer_proxy.py" "$peer" --host 127.0.0.1 \
    --port "$peer_port" --prefiller-hosts 127.0.0.1 --prefiller-ports "$port_base" \
    --decoder-hosts $(printf '127.0.0.1 %.0s' "${decode_ports[@]}") --decoder-ports "${decode_ports[@]}"
  peer_pid="${children[-1]}"
  peer_url="http://127.0.0.1:$peer_port"
  await "the peer ($peer_url/healthcheck)" curl -sf "$peer_url/healthcheck"
  await "a request through the peer to reach $sim_url" probe "$peer_url"
  echo "$tool: vllm-ascend's proxy up ($peer_url, pid $peer_pid): $("$python" -c 'import fastapi, uvicorn, httpx, sys
print("Python", sys.version.split()[0], "FastAPI", fastapi.__version__, "uvicorn", uvicorn.__version__, "httpx", httpx.__version__)')" >&2
  peer_args=(--peer "$peer_url" --peer-pid "$peer_pid")
fi
json_args=()
[[ -z "$json" ]] || json_args=(--json "$json")

java ${BALANCEROUTE_JAVA_OPTS:-} -cp "$jar" org.balanceroute.benchmarks.SideBySide \
  --proxy "$proxy_url" --prefill "$prefill_url" --decode "$decode_urls" --sim "$sim_url" \
  --runtime-pid "$runtime_pid" --engine-pid "$sim_pid" --clock-ticks "$(getconf CLK_TCK)" --replay-launcher "$root/balanceroute" \
  --chart "$chart" "${peer_args[@]}" "${json_args[@]}" "${tool_args[@]}"
