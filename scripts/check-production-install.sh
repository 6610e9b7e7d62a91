#!/usr/bin/env bash
# Proves what the Docker image relies on, without Docker: the built service, installed with production
# dependencies only, starts as the image's CMD (package.json's start command) on the project's Node 24,
# serves a document, validates writes to a collection in its worker threads, and stops cleanly on SIGTERM.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/scripts/lib/service.sh"

cd "$root"
npm run --silent build
bash scripts/provision-redis.sh
cp package.json package-lock.json "$work/"
cp -r dist "$work/dist"
ln -s "$root/.redis" "$work/.redis"
(cd "$work" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error)
if [[ -d "$work/node_modules/typescript" || -d "$work/node_modules/vitest" ]]; then
  echo "production install holds dev dependencies" >&2
  exit 1
fi

port="$(free_port)"
start="$(node -p "require('./package.json').scripts.start")"
# The dev dependency's Node 24 stands in for the image's; the production install has no node of its own.
(cd "$work" && PATH="$root/node_modules/.bin:$PATH" PORT="$port" DATA_DIR="$work/data" LOG_LEVEL=warn $start) &
pid=$!

node - "$port" <<'JS'
const base = `http://127.0.0.1:${process.argv[2]}`
const deadline = Date.now() + 20_000
for (;;) {
  try {
    if ((await fetch(`${base}/health`)).ok) break
  } catch {}
  if (Date.now() > deadline) throw new Error('the production build did not become healthy in 20 s')
  await new Promise((resolve) => setTimeout(resolve, 100))
}
const send = (path, body) => fetch(base + path, { method: 'PUT', headers: { 'content-type': 'application/json' }, body })
const put = await send('/docs/smoke', '{"ok":true}')
const get = await fetch(`${base}/docs/smoke/ok`)
if (put.status !== 201 || (await get.text()) !== 'true') throw new Error(`unexpected answers ${put.status} ${get.status}`)
// Validated collections run in worker threads, loaded from dist/ like the rest.
const schema = await send('/schemas/smoke', '{"type":"object","required":["name"]}')
const refused = await send('/docs/smoke:1', '{"age":1}')
const valid = await send('/docs/smoke:1', '{"name":"Ann"}')
const keyword = refused.status === 422 ? (await refused.json()).errors?.[0]?.keyword : undefined
if (schema.status !== 201 || keyword !== 'required' || valid.status !== 201) {
  throw new Error(`unexpected validated answers ${schema.status} ${refused.status} ${keyword} ${valid.status}`)
}
JS

kill -TERM "$pid"
wait "$pid"
pid=""
echo "production install: starts, serves, validates and stops"
