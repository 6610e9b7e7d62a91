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
