#!/usr/bin/env bash
# A fuzzing run (not CI): each @FuzzTest fuzzed in turn by Jazzer for its maxDuration (3 minutes),
# one Maven run per test (Jazzer fuzzes one test per JVM). What it finds is written beside the
# committed inputs (src/test/resources/.../<Test>Inputs/<method>/crash-*), which every build
# replays as regression tests; its working corpus goes to .cifuzz-corpus/ (not committed).
# Run it at nice 19 on an otherwise idle machine:  nice -n 19 benchmarks/fuzz.sh [TEST ...]
# Set MAVEN_OPTS (e.g. -Dmaven.repo.local=...) or MVN_ARGS (e.g. -o) for Maven.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
all=(bundles/connector-vllm:SseScannerFuzzTest bundles/wire:TokenIdBodyFuzzTest
     bundles/proxy:RequestValidatorFuzzTest bundles/trace:TraceLoaderFuzzTest)
selected=("${all[@]}")
if [[ $# -gt 0 ]]; then
  selected=()
  for want in "$@"; do
    for t in "${all[@]}"; do [[ "${t#*:}" == "$want" ]] && selected+=("$t"); done
  done
  [[ ${#selected[@]} -gt 0 ]] || { echo "fuzz: no such test; known: ${all[*]#*:}" >&2; exit 2; }
fi
cd "$root"
mvn -B -q ${MVN_ARGS:-} -DskipTests install -pl "$(IFS=,; for t in "${selected[@]}"; do printf '%s,' "${t%%:*}"; done)" -am >&2
status=0
for t in "${selected[@]}"; do
  module="${t%%:*}" test="${t#*:}"
  echo "fuzz: $test ($module), $(date -u +%H:%M:%S)" >&2
  JAZZER_FUZZ=1 mvn -B ${MVN_ARGS:-} -pl "$module" test -Dtest="$test" -Dsurefire.failIfNoSpecifiedTests=false \
    > "$module/target/fuzz-$test.log" 2>&1 || status=1
  grep -E 'Tests run:|#[0-9]+ *(DONE|INITED)|cov:|FuzzTestFinding|== Java Exception' "$module/target/fuzz-$test.log" | tail -6 >&2 || true
done
exit "$status"
