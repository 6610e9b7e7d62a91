#!/usr/bin/env bash
# npm run check:clients: proves that clients generated from the committed openapi/openapi.json by two
# independent generators work as generated. It generates a Go client (oapi-codegen) and a Python client
# (openapi-generator, `python`), compiles both, starts the service on loopback with its own throwaway
# Redis, runs each client's scenario (every operation of the description, answers asserted), and checks
# that each scenario called every operation. Generated code stays in .tools/generated-clients.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/scripts/lib/service.sh"
source "$root/scripts/lib/client-tools.sh"
cd "$root"

bash scripts/provision-client-generators.sh
description="$root/openapi/openapi.json"
out="$tools/generated-clients"
rm -rf "$out"
mkdir -p "$out/go/jsondocs"

echo "check:clients: generating the Go client (oapi-codegen $OAPI_CODEGEN_VERSION)" >&2
cp scripts/generated-clients/go/{*.go,go.mod,go.sum} "$out/go/"
"$OAPI_CODEGEN" -generate types,client -package jsondocs -o "$out/go/jsondocs/client.gen.go" "$description"
(cd "$out/go" && go vet ./... && go build -o scenario .)

echo "check:clients: generating the Python client (openapi-generator $OPENAPI_GENERATOR_VERSION)" >&2
java -jar "$OPENAPI_GENERATOR_JAR" generate --generator-name python --input-spec "$description" \
  --output "$out/python" --package-name jsondocs_client \
  --global-property apiTests=false,modelTests=false,apiDocs=false,modelDocs=false >"$out/python-generator.log" \
  || { cat "$out/python-generator.log" >&2; exit 1; }
"$PYTHON_CLIENT_VENV/bin/python" -m compileall -q "$out/python/jsondocs_client"

bash scripts/provision-redis.sh
# A throwaway admin token, so that GET /metrics is served and each client calls it.
export JSONDOCS_ADMIN_TOKEN="check-clients-$(node -e 'console.log(require("node:crypto").randomUUID())')"
start_service KEY_PREFIX="clients:" AUTH_ADMIN_TOKEN="$JSONDOCS_ADMIN_TOKEN"
"$out/go/scenario" "$base" "$out/go-requests.log"
PYTHONPATH="$out/python" "$PYTHON_CLIENT_VENV/bin/python" scripts/generated-clients/python/scenario.py "$base" "$out/python-requests.log"
npx tsx scripts/generated-clients/coverage.ts "$description" "go client=$out/go-requests.log" "python client=$out/python-requests.log"
