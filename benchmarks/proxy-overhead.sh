#!/usr/bin/env bash
# Proxy-overhead benchmark (issue 5): starts a simulated vLLM cluster with near-zero step time
# and the BalanceRoute runtime on their own ports, points the runtime's connector at the
# cluster, runs org.balanceroute.benchmarks.ProxyOverhead and prints its table; stops both on
# exit, on failure and on Ctrl-C. Not run by CI. See README.md, "Proxy overhead".
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

usage() {
  cat <<USAGE
Usage: benchmarks/proxy-overhead.sh [options] [-- ProxyOverhead options]

Starts ./balanceroute sim-cluster (1 prefill server, 8 decode ranks) and ./balanceroute run,
writes the connector's configuration into the distribution's config/ (restored on exit), and
measures (a) the latency the proxy adds per request and (b) relayed tokens/s at 1, 64 and 512
concurrent streams, each against the cluster called directly.

Options:
  --port N             the runtime's port (8400)
  --port-base N        the cluster's port base: prefill N, decode ranks N+100.. (18500)
  --time-factor F      the cluster's wall seconds per modelled second (0.001: a 20 us step)
  --router-capacity B  the router's capacity per worker for this run (default: as configured, 64)
  --capacity B         the cluster's running requests per rank and the router's capacity (64)
  --tool CLASS         the load tool in org.balanceroute.benchmarks (ProxyOverhead; benchmarks/soak.sh: Soak)
  --replicas           also start a cluster of two replicas (ports N+1 and N+2, cluster ports
                       5801 and 5802, homes in the logs directory) and measure (a) through its
                       follower and its dispatcher too, beside the runtime of its own at N
  --logs DIR           where the children's logs go (benchmarks/target/proxy-overhead)
  -h, --help
Everything after -- goes to ProxyOverhead (e.g. -- --concurrency 1,64 --duration-seconds 10);
-- --help lists those options.
Set MAVEN_OPTS (e.g. -Dmaven.repo.local=...) for the builds it may need.
USAGE
}

port=8400
port_base=18500
time_factor=0.001
router_capacity=""
capacity=""
tool=ProxyOverhead
replicas=""
logs="$root/benchmarks/target/proxy-overhead"
tool_args=()
need() { [[ $# -ge 2 && -n "$2" ]] || { echo "proxy-overhead: $1 needs a value" >&2; exit 2; }; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --port) need "$@"; port="$2"; shift 2 ;;
    --port-base) need "$@"; port_base="$2"; shift 2 ;;
    --time-factor) need "$@"; time_factor="$2"; shift 2 ;;
    --router-capacity) need "$@"; router_capacity="$2"; shift 2 ;;
    --capacity) need "$@"; capacity="$2"; router_capacity="$2"; shift 2 ;;
    --tool) need "$@"; tool="$2"; shift 2 ;;
    --replicas) replicas=1; shift ;;
    --logs) need "$@"; logs="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; tool_args=("$@"); break ;;
    *) echo "proxy-overhead: unknown option '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
number() { [[ "$2" =~ ^[0-9]+$ ]] && (( 10#$2 >= $3 && 10#$2 <= $4 )) \
  || { echo "proxy-overhead: $1 must be an integer from $3 to $4, got '$2'" >&2; exit 2; }; }
number --port "$port" 1 65535
number --port-base "$port_base" 1 65427
[[ -z "$router_capacity" ]] || number --router-capacity "$router_capacity" 1 4096
[[ -z "$capacity" ]] || number --capacity "$capacity" 1 4096
[[ "$tool" =~ ^[A-Za-z][A-Za-z0-9]*$ ]] || { echo "proxy-overhead: --tool must be a class name, got '$tool'" >&2; exit 2; }
[[ "$time_factor" =~ ^[0-9]*\.?[0-9]+([eE]-?[0-9]+)?$ ]] \
  || { echo "proxy-overhead: --time-factor must be a number > 0, got '$time_factor'" >&2; exit 2; }

prefill_url="http://127.0.0.1:$port_base"
sim_url="http://127.0.0.1:$((port_base + 99))"
decode_urls=""
for g in 0 1 2 3 4 5 6 7; do decode_urls+="${decode_urls:+,}http://127.0.0.1:$((port_base + 100 + g))"; done
proxy_url="http://127.0.0.1:$port"

busy=("$port" "$port_base" "$((port_base + 99))" "$((port_base + 100))" "$((port_base + 107))")
[[ -z "$replicas" ]] || busy+=("$((port + 1))" "$((port + 2))" 5801 5802)
for p in "${busy[@]}"; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
    echo "proxy-overhead: port $p is already in use; choose others with --port / --port-base" >&2
    exit 1
  fi
done

# The load tool: built here, before the children start, so no two builds run at once.
jar="$root/benchmarks/target/benchmarks.jar"
if [[ ! -f "$jar" || -n "$(find "$root/benchmarks/src" "$root/benchmarks/pom.xml" -newer "$jar" -print -quit)" ]]; then
  echo "proxy-overhead: building benchmarks/ ..." >&2
  (cd "$root" && mvn -B -q -DskipTests -pl benchmarks -am package) >&2
fi

mkdir -p "$logs"
config_dir="$root/distribution/target/balanceroute/config"
saved="$(mktemp -d)"
children=()

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  # each child leads its own process group (setsid): a build it runs stops with it
  for pid in "${children[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  for pid in "${children[@]}"; do
    for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$pid" 2>/dev/null || true
  done
  # the runtime writes ConfigAdmin changes back to config/: put the files as they were
  for f in "$saved"/*.cfg; do [[ -e "$f" ]] && cp "$f" "$config_dir/"; done
  rm -rf "$saved"
  [[ ${#children[@]} -eq 0 ]] || echo "proxy-overhead: cluster and runtime stopped" >&2
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Writes PROPERTY = VALUE into DIR/PID.cfg, dropping the old entry (and its continuation lines);
# in the distribution's config/, the first time, keeps the original for cleanup.
set_property_in() {
  local dir="$1" file="$1/$2.cfg" key="$3" value="$4"
  [[ -f "$file" ]] || { echo "proxy-overhead: $file is missing (distribution not built?)" >&2; exit 1; }
  [[ "$dir" != "$config_dir" || -f "$saved/$2.cfg" ]] || cp "$file" "$saved/$2.cfg"
  awk -v key="$key" '
    skip { skip = /\\$/; next }
    $0 ~ "^[ \t]*" key "[ \t]*[=:]" { skip = /\\$/; next }
    { print }' "$file" > "$file.tmp"
  printf '%s = %s\n' "$key" "$value" >> "$file.tmp"
  mv "$file.tmp" "$file"
}

configure() {
  local dir="${1:-$config_dir}"
  set_property_in "$dir" org.balanceroute.connector.vllm prefillUrls "$prefill_url"
  set_property_in "$dir" org.balanceroute.connector.vllm decodeWorkers "$decode_urls"
  if [[ -n "$router_capacity" ]]; then set_property_in "$dir" org.balanceroute.router capacity "$router_capacity"; fi
}

start() {
  local name="$1"; shift
  setsid "$@" >"$logs/$name.log" 2>&1 < /dev/null &
  children+=("$!")
  echo "proxy-overhead: started $name (pid $!, log $logs/$name.log)" >&2
}

# Polls (no fixed sleeps) until the command succeeds; gives up when a child exits or after
# 10 minutes (first use builds the cluster and the distribution).
await() {
  local what="$1"; shift
  local deadline=$((SECONDS + 600)) pause=0.1
  until "$@" >/dev/null 2>&1; do
    for pid in "${children[@]}"; do
      kill -0 "$pid" 2>/dev/null || { echo "proxy-overhead: a child exited while waiting for $what; see $logs" >&2; exit 1; }
    done
    (( SECONDS < deadline )) || { echo "proxy-overhead: timed out waiting for $what; see $logs" >&2; exit 1; }
    sleep "$pause"; pause=1
  done
}

# the cluster first: ./balanceroute builds what it needs, one build at a time.
start sim-cluster "$root/balanceroute" sim-cluster --prefill 1 --decode 8 --port-base "$port_base" \
  --time-factor "$time_factor" ${capacity:+--capacity "$capacity"}
await "the simulated cluster ($sim_url/health)" curl -sf "$sim_url/health"

# the connector's configuration goes in before the runtime starts (so it never calls another
# cluster), and again once it is up, in case the start rebuilt the distribution's config/
if [[ -d "$config_dir" ]]; then configure; fi
start runtime "$root/balanceroute" run --port "$port"
runtime_pid="${children[-1]}" # setsid and ./balanceroute exec: the runtime's JVM keeps this pid
await "the admin API ($proxy_url/admin/snapshot)" curl -sf -u admin:admin "$proxy_url/admin/snapshot"
configure
await "the proxy ($proxy_url/health)" curl -sf "$proxy_url/health"

# The proxy answers through *this* cluster: one request, counted by the cluster's ground truth.
probe() {
  curl -sf -X POST "$sim_url/sim/stats/reset" &&
  curl -sf "$proxy_url/v1/completions" -H 'Content-Type: application/json' \
    -d '{"model": "balanceroute-sim", "prompt": [1, 2, 3], "max_tokens": 2, "ignore_eos": true}' &&
  curl -sf "$sim_url/sim/stats" | grep -Eq '"completed" *: *[1-9]'
}
await "a request through the proxy to reach $sim_url" probe
echo "proxy-overhead: cluster and runtime up; uptime:$(uptime | sed 's/.*up[^,]*,//')" >&2

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
  echo "proxy-overhead: a cluster of two replicas up: dispatcher http://127.0.0.1:$((port + 1)), follower http://127.0.0.1:$((port + 2))" >&2
  also=(--also "http://127.0.0.1:$((port + 2)),http://127.0.0.1:$((port + 1))")
fi

java ${BALANCEROUTE_JAVA_OPTS:-} -cp "$jar" "org.balanceroute.benchmarks.$tool" \
  --proxy "$proxy_url" --prefill "$prefill_url" --decode "$decode_urls" --sim "$sim_url" \
  --runtime-pid "$runtime_pid" --clock-ticks "$(getconf CLK_TCK)" "${also[@]}" "${tool_args[@]}"
