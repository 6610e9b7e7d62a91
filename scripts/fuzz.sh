#!/usr/bin/env bash
# npm run fuzz: property-based fuzzing of the service with schemathesis, driven by the committed
# openapi/openapi.json, against a service started here on loopback with its own throwaway Redis.
# Bounded: FUZZ_MAX_EXAMPLES per operation (default 50) and FUZZ_MAX_TIME seconds (default 300).
# Extra arguments go to `schemathesis run`.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.tools/schemathesis"
version="4.32.5"
source "$root/scripts/lib/service.sh"

if [[ ! -x "$venv/bin/schemathesis" ]] || ! "$venv/bin/schemathesis" --version | grep -q "$version"; then
  echo "fuzz: installing schemathesis $version into .tools/" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "schemathesis==$version"
fi

cd "$root"
bash scripts/provision-redis.sh
start_service KEY_PREFIX="fuzz:"

# Every check is on by default in this version; naming them with `--checks all` would also override the
# per-operation exceptions in scripts/schemathesis.toml.
"$venv/bin/schemathesis" --config-file scripts/schemathesis.toml run openapi/openapi.json --url "$base" \
  --max-examples "${FUZZ_MAX_EXAMPLES:-50}" \
  --max-time "${FUZZ_MAX_TIME:-300}" \
  --request-timeout 10 \
  --workers 2 \
  "$@"
