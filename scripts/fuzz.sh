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
port="$(free_port)"
PORT="$port" DATA_DIR="$work/data" KEY_PREFIX="fuzz:" LOG_LEVEL=warn node --import tsx src/server.ts &
pid=$!

base="http://127.0.0.1:$port"
for _ in $(seq 200); do
  if node -e "fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))" "$base/health"; then break; fi
  if ! kill -0 "$pid" 2>/dev/null; then echo "fuzz: the service did not start" >&2; exit 1; fi
  sleep 0.1
done

"$venv/bin/schemathesis" --config-file scripts/schemathesis.toml run openapi/openapi.json --url "$base" \
  --checks all \
  --max-examples "${FUZZ_MAX_EXAMPLES:-50}" \
  --max-time "${FUZZ_MAX_TIME:-300}" \
  --request-timeout 10 \
  --workers 2 \
  "$@"
