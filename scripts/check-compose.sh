#!/usr/bin/env bash
# Proves the Dockerfile and docker-compose.yml as a user runs them, on a Debian machine, as root, with no
# image registry needed: a Docker engine (Debian's, started here when none answers), stand-ins for the base
# images (scripts/docker-standins/build.sh, kept for the next run), then docker-compose build and up under a
# project name of its own on a free loopback port. Checks the probe, the client and the console served, a
# write and a read with the compose file's token, a refusal without it, a schema, an index and a query, and
# that the data survives `docker-compose down` and `up`. Removes what it started (containers, the project's
# network and volume, the built image, a dockerd it started) even when a check fails. Prints how long each
# part took.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
source scripts/lib/docker-engine.sh

work="$(mktemp -d)"
project="jsondocs-check-$$"
compose_up=""
started=$SECONDS
part_started=$SECONDS
images_before=""

# part <name>: prints how long the part before it took, and starts timing <name>.
part_name=""
part() {
  if [[ -n "$part_name" ]]; then printf 'timing: %-40s %4d s\n' "$part_name" $((SECONDS - part_started)); fi
  part_name="$1"
  part_started=$SECONDS
  [[ -z "$part_name" ]] || echo "::: compose: $part_name"
}

compose() {
  timeout "${compose_timeout:-120}" docker-compose --project-name "$project" --file "$root/docker-compose.yml" "$@"
}

cleanup() {
  local status=$?
  set +e
  part "clean-up"
  if [[ -n "$compose_up" ]]; then
    if [[ $status -ne 0 ]]; then compose logs --no-color --tail 15 | cut -c1-300; fi
    compose down --volumes --rmi local --remove-orphans
    # What the build left untagged (the build stage): images that were not there before this run.
    local image
    for image in $(docker images --quiet --filter dangling=true); do
      if ! grep -qx "$image" <<<"$images_before"; then docker rmi "$image" >/dev/null; fi
    done
  fi
  stop_docker_engine
  rm -rf "$work"
  part ""
  printf 'timing: %-40s %4d s\n' "in all" $((SECONDS - started))
  exit $status
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

fail() {
  echo "compose: $*" >&2
  exit 1
}

part "docker engine"
start_docker_engine "$work/bin"

part "stand-in base images"
timeout 1800 bash scripts/docker-standins/build.sh

part "docker-compose build"
export JSONDOCS_PORT
JSONDOCS_PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
base="http://127.0.0.1:$JSONDOCS_PORT"
images_before="$(docker images --quiet --filter dangling=true)"
compose_up=yes
if ! compose_timeout=1800 compose build >"$work/build.log" 2>&1; then
  tail -n 40 "$work/build.log" >&2
  fail "docker-compose build failed"
fi
docker image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep "^${project}[_-]jsondocs:" |
  sed 's/^/compose: the service image, /'

# wait_healthy: until both containers report healthy, at most 120 s.
wait_healthy() {
  local deadline=$((SECONDS + 120)) service id state states
  while :; do
    states=""
    for service in redis jsondocs; do
      id="$(compose ps --quiet "$service")"
      state="$( [[ -n "$id" ]] && docker inspect --format '{{.State.Health.Status}}' "$id" 2>/dev/null || echo missing)"
      states+="$service=$state "
    done
    if [[ "$states" == "redis=healthy jsondocs=healthy " ]]; then return 0; fi
    ((SECONDS <= deadline)) || fail "not healthy within 120 s: $states"
    sleep 1
  done
}

# call <method> <path> [body] [curl options...]: prints the status and content type, then the body.
call() {
  local method="$1" path="$2" body=()
  if [[ -n "${3:-}" ]]; then body=(--header 'content-type: application/json' --data "$3"); fi
  shift $(($# < 3 ? $# : 3))
  curl --silent --show-error --max-time 10 --output "$work/body" --write-out '%{http_code} %{content_type}\n' \
    --request "$method" "${body[@]}" "$@" "$base$path"
  cat "$work/body"
  echo
}

# expect <what> <status pattern> <jq test of the JSON body, or - for none> <call arguments...>: prints the body.
expect() {
  local what="$1" status="$2" test="$3" answer
  shift 3
  answer="$(call "$@")" || fail "$what: no answer"
  if ! [[ "${answer%% *}" =~ ^($status)$ ]] ||
    { [[ "$test" != - ]] && ! tail -n +2 <<<"$answer" | jq -e "$test" >/dev/null 2>&1; }; then
    fail "$what: expected $status and $test, got: $answer"
  fi
  echo "compose: $what: $(head -n 1 <<<"$answer")" >&2
  tail -n +2 <<<"$answer"
}

part "docker-compose up, healthy"
compose up --detach --no-build
wait_healthy
token="$(docker inspect --format '{{range .Config.Env}}{{println .}}{{end}}' "$(compose ps --quiet jsondocs)" |
  sed -n 's/^AUTH_ADMIN_TOKEN=//p')"
[[ -n "$token" ]] || fail "the service container has no AUTH_ADMIN_TOKEN"
auth=(--header "authorization: Bearer $token")
order='{"status":"open","total":12,"title":"a first order"}'

part "checks"
expect "readiness, with search" 200 '.status == "ok" and (has("search") | not)' GET /readyz >/dev/null
expect "the client bundle" 200 - GET /sdk/jsondocs.js >/dev/null
expect "the console" 200 - GET /console >/dev/null
expect "a write with the token" 201 true PUT /docs/orders:1 "$order" "${auth[@]}" >/dev/null
expect "a read with the token" 200 ". == $order" GET /docs/orders:1 "" "${auth[@]}" >/dev/null
answer="$(call GET /docs/orders:1)"
[[ "$(head -n 1 <<<"$answer")" == "401 application/problem+json"* ]] || fail "a read without the token: $answer"
tail -n +2 <<<"$answer" | jq -e '.code == "DOCS_ERR_UNAUTHORIZED"' >/dev/null || fail "a read without the token: $answer"
echo "compose: a read without the token: $(head -n 1 <<<"$answer")"
expect "a collection schema" 201 true PUT /schemas/orders \
  '{"type":"object","required":["status"],"properties":{"status":{"type":"string"},"total":{"type":"number"}}}' \
  "${auth[@]}" >/dev/null
expect "a write the schema refuses" 422 '.code == "DOCS_ERR_SCHEMA_VIOLATION"' PUT /docs/orders:2 '{"total":3}' \
  "${auth[@]}" >/dev/null
expect "an index" '200|202' '.collection == "orders"' PUT /collections/orders/index \
  '{"fields":[{"pointer":"/status","type":"tag"},{"pointer":"/total","type":"number","sortable":true}]}' \
  "${auth[@]}" >/dev/null
deadline=$((SECONDS + 30))
until [[ "$(call GET /collections/orders/index "" "${auth[@]}" | tail -n +2 | jq -r .state)" == ready ]]; do
  ((SECONDS <= deadline)) || fail "the index is not ready within 30 s"
  sleep 0.5
done
query='{"filter":{"/status":"open","/total":{"$gte":10}}}'
expect "a query" 200 '[.items[].key] == ["orders:1"]' POST /collections/orders/query "$query" "${auth[@]}" >/dev/null

part "docker-compose down, then up"
compose down
compose up --detach --no-build
wait_healthy
expect "the document after a restart" 200 ". == $order" GET /docs/orders:1 "" "${auth[@]}" >/dev/null
expect "the query after a restart" 200 '[.items[].key] == ["orders:1"]' POST /collections/orders/query "$query" \
  "${auth[@]}" >/dev/null
