#!/usr/bin/env bash
# Proxy-overhead benchmark (issue 5): starts a simulated vLLM cluster with near-zero step time
# and the BalanceRoute runtime on their own ports, points the runtime's connector at the
# cluster, runs org.balanceroute.benchmarks.ProxyOverhead and prints its table; stops both on
# exit, on failure and on Ctrl-C. Not run by CI. See docs/proxy-overhead.md.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tool=proxy-overhead
source "$root/benchmarks/lib/harness.sh"

usage() {
  cat <<USAGE
Usage: benchmarks/proxy-overhead.sh [options] [-- ProxyOverhead options]

Starts ./balanceroute sim-cluster (1 prefill server, 8 decode ranks) and ./balanceroute run,
writes the connector's configuration into the distribution's config/ (restored on exit), and
measures (a) the latency the proxy adds per request and (b) relayed tokens/s at 1, 64 and 512
concurrent streams, each against the cluster called directly.

Options:
$(harness_usage)
  --tool CLASS         the load tool in org.balanceroute.benchmarks (ProxyOverhead; benchmarks/soak.sh: Soak)
  --replicas           also start a cluster of two replicas (ports N+1 and N+2, cluster ports
                       5801 and 5802, homes in the logs directory) and measure (a) through its
                       follower and its dispatcher too, beside the runtime of its own at N
  -h, --help
Everything after -- goes to ProxyOverhead (e.g. -- --concurrency 1,64 --duration-seconds 10);
-- --help lists those options.
Set MAVEN_OPTS (e.g. -Dmaven.repo.local=...) for the builds it may need.
USAGE
}

replicas=""
tool_class=ProxyOverhead
tool_args=()
while [[ $# -gt 0 ]]; do
  if harness_option "$@"; then shift "$harness_shift"; continue; fi
  case "$1" in
    --tool) need "$@"; tool_class="$2"; shift 2 ;;
    --replicas) replicas=1; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; tool_args=("$@"); break ;;
    *) echo "$tool: unknown option '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
harness_setup
[[ "$tool_class" =~ ^[A-Za-z][A-Za-z0-9]*$ ]] || { echo "$tool: --tool must be a class name, got '$tool_class'" >&2; exit 2; }
if [[ -n "$replicas" ]]; then harness_free_ports "$((port + 1))" "$((port + 2))" 5801 5802; else harness_free_ports; fi
harness_build_tool
harness_start_cluster_and_runtime

also=()
if [[ -n "$replicas" ]]; then
  # two replicas in homes of their own: the older (the dispatcher) first, then the follower
  members="127.0.0.1:5801,127.0.0.1:5802"
  for i in 0 1; do
    home="$logs/replica-$i"
    rm -rf "$home"
    mkdir -p "$home"
    cp -R "$root/distribution/target/balanceroute/config" "$home/config"
    configure "$home/config"
    start "replica-$i" "$root/balanceroute" run --port "$((port + 1 + i))" --home "$home" \
      --cluster-port "$((5801 + i))" --cluster-members "$members"
    await "replica $i (http://127.0.0.1:$((port + 1 + i))/admin/snapshot)" \
      curl -sf -u admin:admin "http://127.0.0.1:$((port + 1 + i))/admin/snapshot"
  done
  two() { curl -sf -u admin:admin "http://127.0.0.1:$1/admin/snapshot" | grep -o '"address"' | wc -l | grep -qx 2; }
  await "a cluster of two replicas" two "$((port + 2))"
  echo "$tool: a cluster of two replicas up: dispatcher http://127.0.0.1:$((port + 1)), follower http://127.0.0.1:$((port + 2))" >&2
  also=(--also "http://127.0.0.1:$((port + 2)),http://127.0.0.1:$((port + 1))")
fi

java ${BALANCEROUTE_JAVA_OPTS:-} -cp "$jar" "org.balanceroute.benchmarks.$tool_class" \
  --proxy "$proxy_url" --prefill "$prefill_url" --decode "$decode_urls" --sim "$sim_url" \
  --runtime-pid "$runtime_pid" --engine-pid "$sim_pid" --clock-ticks "$(getconf CLK_TCK)" "${also[@]}" "${tool_args[@]}"
