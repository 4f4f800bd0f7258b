#!/usr/bin/env bash
# The script of the composite GitHub Action (action.yml at the repository's root): checks a
# deployment of both interfaces with the conformance suite and keeps the JUnit report.
#   - Which tusk: INPUT_TUSK when given (e.g. "npx --no-install tusk" where tusk-mock is installed);
#     else the project's node_modules/.bin/tusk; else this repository's own, built once (npm ci and
#     npm run build in the action's folder).
#   - Which deployment: INPUT_CUSTOMER_URL and INPUT_INSTANCE_URL (with INPUT_API_KEY) when given;
#     else `tusk serve` started here (INPUT_SERVE_ARGS added to its flags) and stopped at the end.
#     Either is waited for, at most INPUT_WAIT_SECONDS, by the status code of GET /__tusk/health
#     (a Tusk: 503 until ready, 200 once ready; another deployment: any answer, its 404 included).
#   - `tusk test` with the deployment, keys and switches as TUSK_* variables (INPUT_ROLE_KEYS,
#     INPUT_RATE_LIMIT, INPUT_ALLOW_DESTRUCTIVE, INPUT_CHECK_DATABASES; INPUT_FILTERS: file filters),
#     writing JUnit to INPUT_JUNIT.
#   - Outputs (to GITHUB_OUTPUT when set): junit (the report's path) and exit-code. Exit code: the
#     suite's (0 passed, 1 departed); 2 when the action could not run it (no deployment ready).
# Run by test/action.test.ts as it is.
set -euo pipefail

action_dir=${GITHUB_ACTION_PATH:-$(cd "$(dirname "$0")/.." && pwd)}
work=${RUNNER_TEMP:-${TMPDIR:-/tmp}}
junit=${INPUT_JUNIT:-reports/tusk-contract.xml}
wait_seconds=${INPUT_WAIT_SECONDS:-120}
say() { echo "tusk-action: $*"; }
output() { if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "$1=$2" >>"$GITHUB_OUTPUT"; fi; }

# --- which tusk ----------------------------------------------------------------------------------
if [ -n "${INPUT_TUSK:-}" ]; then
  read -r -a tusk <<<"$INPUT_TUSK"
elif [ -x node_modules/.bin/tusk ]; then
  tusk=(node_modules/.bin/tusk)
else
  if [ ! -f "$action_dir/dist/tusk.cjs" ]; then
    say "building tusk from $action_dir (npm ci, npm run build)"
    (cd "$action_dir" && npm ci --no-audit --no-fund --loglevel=error && npm run -s build) >&2
  fi
  tusk=(node "$action_dir/bin/tusk.js")
fi
say "tusk: ${tusk[*]} ($("${tusk[@]}" --version))"

# --- which deployment ----------------------------------------------------------------------------
serve_pid=
serve_log="$work/tusk-serve-$$.log"
stop_serve() {
  [ -n "$serve_pid" ] || return 0
  kill -TERM -- "-$serve_pid" 2>/dev/null || true
  for _ in $(seq 1 40); do kill -0 "$serve_pid" 2>/dev/null || break; sleep 0.25; done
  kill -KILL -- "-$serve_pid" 2>/dev/null || true
  serve_pid=
}
trap stop_serve EXIT

customer=${INPUT_CUSTOMER_URL:-}
instance=${INPUT_INSTANCE_URL:-}
api_key=${INPUT_API_KEY:-}
if [ -n "$customer" ] || [ -n "$instance" ]; then
  if [ -z "$customer" ] || [ -z "$instance" ] || [ -z "$api_key" ]; then
    say "give customer-url, instance-url and api-key together (or none of them to test a tusk serve started here)"
    output exit-code 2
    exit 2
  fi
  say "deployment: customer API $customer, instance API $instance"
else
  read -r -a serve_args <<<"${INPUT_SERVE_ARGS:-}"
  # Its own process group, so that stopping it stops its embedded Postgres server too.
  setsid "${tusk[@]}" serve "${serve_args[@]}" >"$serve_log" 2>&1 &
  serve_pid=$!
  # Its URLs and key from what it prints (ports 0 pick free ones).
  for _ in $(seq 1 $((wait_seconds * 4))); do
    grep -q '^tusk: ready' "$serve_log" && break
    if ! kill -0 "$serve_pid" 2>/dev/null; then
      cat "$serve_log"
      say "tusk serve exited before it was ready"
      output exit-code 2
      exit 2
    fi
    sleep 0.25
  done
  customer=$(sed -n 's/^tusk: customer API *//p' "$serve_log" | head -n 1)
  instance=$(sed -n 's/^tusk: instance API *//p' "$serve_log" | head -n 1)
  api_key=$(sed -n 's/^tusk: admin key *\([^ ]*\).*/\1/p' "$serve_log" | head -n 1)
  if [ -z "$customer" ]; then
    cat "$serve_log"
    say "tusk serve printed no address within $wait_seconds s"
    output exit-code 2
    exit 2
  fi
  say "tusk serve: customer API $customer, instance API $instance"
fi

# Readiness by status code: a Tusk answers 503 (with the reason) until everything it serves is
# ready, then 200. Another deployment (the real service) has no /__tusk/health: its 404 says it
# is up. Until it answers at all, it is waited for too.
health=
for _ in $(seq 1 $((wait_seconds * 2))); do
  code=$(curl -s -o "$work/tusk-health-$$.json" -w '%{http_code}' "$customer/__tusk/health" || true)
  health=$(cat "$work/tusk-health-$$.json" 2>/dev/null || true)
  if [ "$code" = 200 ] || { [ "$code" = 404 ] && [ -z "$serve_pid" ]; }; then break; fi
  sleep 0.5
done
rm -f "$work/tusk-health-$$.json"
if [ "$code" = 404 ] && [ -z "$serve_pid" ]; then
  health="(no /__tusk/health: not a Tusk)"
elif [ "${code:-}" != 200 ]; then
  [ -z "$serve_pid" ] || cat "$serve_log"
  say "not ready after $wait_seconds s: GET $customer/__tusk/health answered ${code:-nothing} $health"
  output exit-code 2
  exit 2
fi
say "ready: $health"

# --- the suite -----------------------------------------------------------------------------------
mkdir -p "$(dirname "$junit")"
read -r -a filters <<<"${INPUT_FILTERS:-}"
switch() { case "${1,,}" in true | 1 | yes | on) echo 1 ;; *) echo '' ;; esac; }
code=0
TUSK_CUSTOMER_URL=$customer TUSK_INSTANCE_URL=$instance TUSK_API_KEY=$api_key \
  TUSK_ROLE_KEYS=${INPUT_ROLE_KEYS:-} TUSK_RATE_LIMIT=${INPUT_RATE_LIMIT:-} \
  TUSK_ALLOW_DESTRUCTIVE=$(switch "${INPUT_ALLOW_DESTRUCTIVE:-false}") \
  TUSK_CHECK_DATABASES=$(switch "${INPUT_CHECK_DATABASES:-false}") \
  "${tusk[@]}" test --junit "$junit" "${filters[@]}" || code=$?
stop_serve
output junit "$junit"
output exit-code "$code"
if [ -f "$junit" ]; then say "JUnit report: $junit"; else say "no JUnit report was written"; fi
say "tusk test exited with $code"
exit "$code"
