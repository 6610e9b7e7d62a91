# Sourced by the scripts that start the service on loopback: a throwaway folder in $work, removed on
# exit together with the service whose PID the caller puts in $pid, and free_port.
work="$(mktemp -d)"
pid=""
cleanup() {
  if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then kill -TERM "$pid"; wait "$pid" || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# A TCP port free on 127.0.0.1 at the time of asking.
free_port() {
  node -e "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close() })"
}

# Starts the service from its sources on a free loopback port, its embedded Redis and data in $work, with
# the settings given as NAME=value arguments; sets $pid and $base, and returns once /health answers.
# Run through npm, so that `node` is the project's Node 24.
start_service() {
  local port
  port="$(free_port)"
  env PORT="$port" DATA_DIR="$work/data" LOG_LEVEL=warn "$@" node --import tsx src/server.ts &
  pid=$!
  base="http://127.0.0.1:$port"
  for _ in $(seq 200); do
    if node -e "fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))" "$base/health"; then
      return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then echo "the service did not start" >&2; return 1; fi
    sleep 0.1
  done
  echo "the service did not answer /health in time" >&2
  return 1
}
