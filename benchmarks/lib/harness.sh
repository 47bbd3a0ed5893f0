# Shared by benchmarks/proxy-overhead.sh and benchmarks/side-by-side.sh (sourced, not run): the
# common options, the ports, the load tool's build, starting the simulated cluster with near-zero
# step time and the BalanceRoute runtime on their own ports with the runtime's connector pointed
# at the cluster, and stopping every child on exit, on failure and on Ctrl-C.
# The sourcing script sets $tool (its name, for messages) and $root (the project) first.

port=8400
port_base=18500
time_factor=0.001
router_capacity=""
pool_depth="${pool_depth:-}"
prefill_in_flight="${prefill_in_flight:-}"
capacity=""
logs="$root/benchmarks/target/$tool"

harness_usage() {
  cat <<USAGE
  --port N             the runtime's port ($port)
  --port-base N        the cluster's port base: prefill N, all ranks N+99, decode ranks N+100.. ($port_base)
  --time-factor F      the cluster's wall seconds per modelled second ($time_factor: a 20 us step)
  --router-capacity B  the router's capacity per worker for this run (default: as configured, 64)
  --capacity B         the cluster's running requests per rank and the router's capacity (64)
  --max-pool-depth N   the proxy's maxPoolDepth and the connector's prefillQueueMax for this run (default: ${pool_depth:-as configured, 4096})
  --prefill-in-flight N  the connector's prefillMaxInFlight for this run (default: ${prefill_in_flight:-as configured, 64})
  --logs DIR           where the children's logs go (benchmarks/target/$tool)
USAGE
}

need() { [[ $# -ge 2 && -n "$2" ]] || { echo "$tool: $1 needs a value" >&2; exit 2; }; }

# One of the common options at "$@": sets harness_shift to the words it took; status 1 if not one.
harness_option() {
  harness_shift=2
  case "$1" in
    --port) need "$@"; port="$2" ;;
    --port-base) need "$@"; port_base="$2" ;;
    --time-factor) need "$@"; time_factor="$2" ;;
    --router-capacity) need "$@"; router_capacity="$2" ;;
    --capacity) need "$@"; capacity="$2"; router_capacity="$2" ;;
    --max-pool-depth) need "$@"; pool_depth="$2" ;;
    --prefill-in-flight) need "$@"; prefill_in_flight="$2" ;;
    --logs) need "$@"; logs="$2" ;;
    *) return 1 ;;
  esac
}

number() { [[ "$2" =~ ^[0-9]+$ ]] && (( 10#$2 >= $3 && 10#$2 <= $4 )) \
  || { echo "$tool: $1 must be an integer from $3 to $4, got '$2'" >&2; exit 2; }; }

# Open files: every stream holds a connection at each hop (client to proxy, proxy to engine, and the
# prefill hops'), so a few thousand streams need far more than the usual 1,024 descriptors per
# process. Raised here, as high as allowed (65,536, else the hard limit), for every child and the load
# client; the load tool checks each process's limit against the streams asked for and fails clearly.
harness_raise_open_files() {
  local want=65536 hard
  if ! ulimit -n "$want" 2>/dev/null; then
    hard="$(ulimit -Hn)"
    if [[ "$hard" == unlimited ]] || (( hard > want )); then hard="$want"; fi
    ulimit -Sn "$hard" 2>/dev/null || true
  fi
  echo "$tool: open files: $(ulimit -Sn) per process (hard limit $(ulimit -Hn))" >&2
}

# Checks the common options and sets the URLs: prefill_url, sim_url (all ranks), decode_urls, proxy_url.
harness_setup() {
  number --port "$port" 1 65535
  number --port-base "$port_base" 1 65427
  [[ -z "$router_capacity" ]] || number --router-capacity "$router_capacity" 1 4096
  [[ -z "$capacity" ]] || number --capacity "$capacity" 1 4096
  [[ -z "$pool_depth" ]] || number --max-pool-depth "$pool_depth" 0 1000000
  [[ -z "$prefill_in_flight" ]] || number --prefill-in-flight "$prefill_in_flight" 0 100000
  [[ "$time_factor" =~ ^[0-9]*\.?[0-9]+([eE]-?[0-9]+)?$ ]] \
    || { echo "$tool: --time-factor must be a number > 0, got '$time_factor'" >&2; exit 2; }
  prefill_url="http://127.0.0.1:$port_base"
  sim_url="http://127.0.0.1:$((port_base + 99))"
  decode_urls=""
  for g in 0 1 2 3 4 5 6 7; do decode_urls+="${decode_urls:+,}http://127.0.0.1:$((port_base + 100 + g))"; done
  proxy_url="http://127.0.0.1:$port"
  config_dir="$root/distribution/target/balanceroute/config"
  jar="$root/benchmarks/target/benchmarks.jar"
  busy=("$port" "$port_base" "$((port_base + 99))" "$((port_base + 100))" "$((port_base + 107))")
  harness_raise_open_files
}

# Fails when a port in $busy (plus any given) is taken: two runs at once would measure each other.
harness_free_ports() {
  local p
  for p in "${busy[@]}" "$@"; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$tool: port $p is already in use; choose others with --port / --port-base" >&2
      exit 1
    fi
  done
}

# The load tool: built here, before the children start, so no two builds run at once.
harness_build_tool() {
  if [[ ! -f "$jar" || -n "$(find "$root/benchmarks/src" "$root/benchmarks/pom.xml" -newer "$jar" -print -quit)" ]]; then
    echo "$tool: building benchmarks/ ..." >&2
    (cd "$root" && mvn -B -q -DskipTests -pl benchmarks -am package) >&2
  fi
}

children=()
saved="$(mktemp -d)"

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
  [[ ${#children[@]} -eq 0 ]] || echo "$tool: every process it started stopped" >&2
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Writes PROPERTY = VALUE into DIR/PID.cfg, dropping the old entry (and its continuation lines);
# in the distribution's config/, the first time, keeps the original for cleanup.
set_property_in() {
  local dir="$1" file="$1/$2.cfg" key="$3" value="$4"
  [[ -f "$file" ]] || { echo "$tool: $file is missing (distribution not built?)" >&2; exit 1; }
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
  set_property_in "$dir" org.balanceroute.pool-default prefillUrls "$prefill_url"
  set_property_in "$dir" org.balanceroute.pool-default instance.decode.workers "$decode_urls"
  if [[ -n "$router_capacity" ]]; then
    set_property_in "$dir" org.balanceroute.pool-default instance.decode.capacity "$router_capacity"
  fi
  if [[ -n "$pool_depth" ]]; then
    # and as many may wait for a prefill slot: a closed loop of N streams starts N prefills at once
    set_property_in "$dir" org.balanceroute.proxy maxPoolDepth "$pool_depth"
    set_property_in "$dir" org.balanceroute.connector.vllm prefillQueueMax "$pool_depth"
  fi
  if [[ -n "$prefill_in_flight" ]]; then
    set_property_in "$dir" org.balanceroute.connector.vllm prefillMaxInFlight "$prefill_in_flight"
  fi
}

# start NAME COMMAND...: in a session of its own, its log in $logs/NAME.log; its pid is ${children[-1]}
# (setsid, ./balanceroute and a plain interpreter exec: the pid is the JVM's or the interpreter's).
start() {
  local name="$1"; shift
  mkdir -p "$logs"
  setsid "$@" >"$logs/$name.log" 2>&1 < /dev/null &
  children+=("$!")
  echo "$tool: started $name (pid $!, log $logs/$name.log)" >&2
}

# Polls (no fixed sleeps) until the command succeeds; gives up when a child exits or after
# 10 minutes (first use builds the cluster and the distribution).
await() {
  local what="$1"; shift
  local deadline=$((SECONDS + 600)) pause=0.1
  until "$@" >/dev/null 2>&1; do
    for pid in "${children[@]}"; do
      kill -0 "$pid" 2>/dev/null || { echo "$tool: a child exited while waiting for $what; see $logs" >&2; exit 1; }
    done
    (( SECONDS < deadline )) || { echo "$tool: timed out waiting for $what; see $logs" >&2; exit 1; }
    sleep "$pause"; pause=1
  done
}

# probe URL: one request through that proxy, counted by *this* cluster's ground truth.
probe() {
  curl -sf -X POST "$sim_url/sim/stats/reset" &&
  curl -sf "$1/v1/completions" -H 'Content-Type: application/json' \
    -d '{"model": "balanceroute-sim", "prompt": [1, 2, 3], "max_tokens": 2, "ignore_eos": true}' &&
  curl -sf "$sim_url/sim/stats" | grep -Eq '"completed" *: *[1-9]'
}

# The cluster (1 prefill server, 8 decode ranks) and the runtime, its connector on the cluster;
# sets sim_pid and runtime_pid.
harness_start_cluster_and_runtime() {
  # the cluster first: ./balanceroute builds what it needs, one build at a time.
  start sim-cluster "$root/balanceroute" sim-cluster --prefill 1 --decode 8 --port-base "$port_base" \
    --time-factor "$time_factor" ${capacity:+--capacity "$capacity"}
  sim_pid="${children[-1]}"
  await "the simulated cluster ($sim_url/health)" curl -sf "$sim_url/health"
  # the connector's configuration goes in before the runtime starts (so it never calls another
  # cluster), and again once it is up, in case the start rebuilt the distribution's config/
  if [[ -d "$config_dir" ]]; then configure; fi
  start runtime "$root/balanceroute" run --port "$port"
  runtime_pid="${children[-1]}"
  await "the admin API ($proxy_url/admin/snapshot)" curl -sf -u admin:admin "$proxy_url/admin/snapshot"
  configure
  await "the proxy ($proxy_url/health)" curl -sf "$proxy_url/health"
  await "a request through the proxy to reach $sim_url" probe "$proxy_url"
  echo "$tool: cluster and runtime up; uptime:$(uptime | sed 's/.*up[^,]*,//')" >&2
}
