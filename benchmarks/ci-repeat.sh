#!/usr/bin/env bash
# Runs the tests N times in a clone of this checkout's commit, built once, and tallies every failed
# test (class and method) into benchmarks/ci-tally.tsv, a file kept in the source tree so that runs
# over several sessions add up. A test that fails by chance is a defect: this finds it.
#   benchmarks/ci-repeat.sh N [--load] [--module M] [--test PATTERN] [--rev REV]
#   benchmarks/ci-repeat.sh --report          # the tally so far, per scope and test
# --module M      Maven's -pl list: itests, bundles/connector-vllm, '!itests,!benchmarks' (the unit
#                 tests); default the whole reactor, as CI runs it.
# --test PATTERN  the classes (and methods) to run, as surefire's -Dtest and failsafe's -Dit.test.
# --load          one busy loop per core at normal priority for the whole run, so that the tests
#                 get about half the CPU they get alone: races that need a slow thread show up.
# --rev REV       the commit to test (default HEAD); uncommitted changes are not tested.
# The clone and its Maven repository live in $BALANCEROUTE_CI_REPEAT_DIR (default
# /tmp/balanceroute-ci-repeat); a run's Maven output goes to run-K.log there. Needs git, mvn, python3.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tally="$root/benchmarks/ci-tally.tsv"
work="${BALANCEROUTE_CI_REPEAT_DIR:-/tmp/balanceroute-ci-repeat}"

usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
fail() { echo "ci-repeat: $*" >&2; exit 2; }

report() {
  [ -f "$tally" ] || fail "no tally yet ($tally)"
  python3 - "$tally" <<'EOF'
import collections, signal, sys
signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `--report | head` ends quietly
runs = collections.Counter(); failed_runs = collections.Counter(); fails = collections.Counter()
for line in open(sys.argv[1]):
    if line.startswith('#') or not line.strip():
        continue
    date, commit, scope, load, run, kind, test = line.rstrip('\n').split('\t')
    key = (scope, load)
    if kind == 'run':
        runs[key] += 1
        if test != 'pass':
            failed_runs[key] += 1
    else:
        fails[(key, kind, test)] += 1
for key in sorted(runs):
    scope, load = key
    print(f"{scope} ({'under load' if load == 'load' else 'alone'}): {runs[key]} runs, {failed_runs[key]} red")
    for (k, kind, test), n in sorted(fails.items(), key=lambda e: -e[1]):
        if k == key:
            print(f"  {n:3d}  {kind:7s} {test}")
EOF
}

runs="" load=no module="" pattern="" rev=HEAD
while [ $# -gt 0 ]; do
  case "$1" in
    --report) report; exit 0 ;;
    --load) load=load ;;
    --module) [ $# -ge 2 ] || fail "--module needs a value"; module="$2"; shift ;;
    --test) [ $# -ge 2 ] || fail "--test needs a value"; pattern="$2"; shift ;;
    --rev) [ $# -ge 2 ] || fail "--rev needs a value"; rev="$2"; shift ;;
    -h|--help) usage ;;
    -*) fail "unknown option $1" ;;
    *) [[ "$1" =~ ^[1-9][0-9]*$ ]] || fail "N must be a positive number of runs, not '$1'"; runs="$1" ;;
  esac
  shift
done
[ -n "$runs" ] || usage
commit="$(git -C "$root" rev-parse --verify "$rev^{commit}")" || fail "no commit $rev"
scope="${module:-all}${pattern:+ -Dtest=$pattern}"

# One clone at the commit, built once (its own Maven repository: the runs install nothing).
clone="$work/clone"
m2="$work/m2"
mkdir -p "$work"
if [ ! -d "$clone/.git" ]; then git clone -q "$root" "$clone"; fi
git -C "$clone" fetch -q "$root" "$commit"
git -C "$clone" checkout -q --detach "$commit"
git -C "$clone" clean -qfdx
[ -d "$m2" ] || { [ -d "$HOME/.m2/repository" ] && cp -r "$HOME/.m2/repository" "$m2" || mkdir -p "$m2"; }
mvn_args=(-B -Dmaven.repo.local="$m2")
echo "ci-repeat: building ${commit:0:7} once in $clone"
(cd "$clone" && mvn "${mvn_args[@]}" -q install -DskipTests) > "$work/build.log" 2>&1 \
  || fail "the build failed: $work/build.log"

hogs=()
stop_hogs() { [ ${#hogs[@]} -eq 0 ] || kill "${hogs[@]}" 2>/dev/null || true; }
trap stop_hogs EXIT
if [ "$load" = load ]; then
  for _ in $(seq "$(nproc)"); do ( while :; do :; done ) & hogs+=($!); done
fi

[ -f "$tally" ] || printf '# date\tcommit\tscope\tload\trun\tkind\ttest\n' > "$tally"
run_args=(-o verify -fae -Dmaven.test.failure.ignore=true)
[ -z "$module" ] || run_args+=(-pl "$module")
[ -z "$pattern" ] || run_args+=(-Dtest="$pattern" -Dit.test="$pattern" -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false)
for k in $(seq "$runs"); do
  find "$clone" -type d \( -name surefire-reports -o -name failsafe-reports \) -prune -exec rm -rf {} +
  started=$(date +%s)
  status=0
  (cd "$clone" && mvn "${mvn_args[@]}" "${run_args[@]}") > "$work/run-$k.log" 2>&1 || status=$?
  # One row per run (pass, red, or broken when Maven failed for another reason than a test), then
  # one row per failed or erroring test method.
  rows="$(python3 - "$clone" "$status" "$(date -u +%FT%TZ)" "${commit:0:7}" "$scope" "$load" "$k" <<'EOF'
import sys, pathlib, xml.etree.ElementTree as ET
clone, status, date, commit, scope, load, run = sys.argv[1:]
rows, tests = [], 0
for report in pathlib.Path(clone).glob('**/target/*-reports/TEST-*.xml'):
    for case in ET.parse(report).getroot().iter('testcase'):
        tests += 1
        for kind in ('failure', 'error'):
            if case.find(kind) is not None:
                rows.append((kind, f"{case.get('classname')}#{case.get('name')}"))
verdict = 'red' if rows else ('broken' if status != '0' or tests == 0 else 'pass')
print('\t'.join((date, commit, scope, load, run, 'run', verdict)))
for kind, test in rows:
    print('\t'.join((date, commit, scope, load, run, kind, test)))
EOF
)"
  printf '%s\n' "$rows" >> "$tally"
  first="${rows%%$'\n'*}"
  echo "ci-repeat: run $k/$runs ${first##*$'\t'}: $(( $(printf '%s\n' "$rows" | wc -l) - 1 )) failed tests, $(( $(date +%s) - started )) s"
done
report
