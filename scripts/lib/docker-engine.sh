# Sourced by scripts that need a Docker engine on this Debian machine, as root. start_docker_engine waits for
# any other run of it on the machine to end, installs Debian's docker.io, docker-compose and debootstrap when
# missing, and starts dockerd when no engine answers: on a socket of its own (DOCKER_HOST), so that nothing
# else on the machine takes it for the usual one (the test suite uses /var/run/docker.sock when it exists).
# It puts a docker client of the engine's own version first on PATH. stop_docker_engine stops that dockerd,
# and only it, when this started it.
engine_dir=/run/jsondocs-docker
engine_log="${TMPDIR:-/tmp}/jsondocs-dockerd.log"
engine_pid=""

docker_answers() {
  timeout 10 docker version --format '{{.Server.Version}}' >/dev/null 2>&1
}

start_docker_engine() {
  local bin_dir="$1" missing=() package
  # One user of this at a time on a machine, until the caller exits: they share the engine this may start
  # (and stop) and the images they build. The lock is file descriptor 9, which dockerd does not inherit.
  mkdir -p "$engine_dir"
  exec 9>"$engine_dir/lock"
  if ! flock --wait 1800 9; then
    echo "docker: $engine_dir/lock was held for 30 minutes by another run" >&2
    return 1
  fi
  for package in docker.io docker-compose debootstrap; do
    if [[ "$(dpkg-query -W -f '${Status}' "$package" 2>/dev/null)" != "install ok installed" ]]; then
      missing+=("$package")
    fi
  done
  if [[ ${#missing[@]} -gt 0 ]]; then
    echo "docker: installing Debian's ${missing[*]}"
    timeout 300 apt-get update -qq
    DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq "${missing[@]}" >/dev/null
  fi

  if ! docker_answers; then
    export DOCKER_HOST="unix://$engine_dir/docker.sock"
    if ! docker_answers; then
      mkdir -p "$engine_dir"
      echo "docker: starting dockerd on $DOCKER_HOST, its log in $engine_log"
      dockerd --storage-driver overlay2 --host "$DOCKER_HOST" --exec-root "$engine_dir/exec" \
        --pidfile "$engine_dir/dockerd.pid" >"$engine_log" 2>&1 9>&- &
      engine_pid=$!
      local deadline=$((SECONDS + 60))
      until docker_answers; do
        if ! kill -0 "$engine_pid" 2>/dev/null || ((SECONDS > deadline)); then
          echo "docker: dockerd did not answer within 60 s; the end of its log:" >&2
          tail -n 20 "$engine_log" >&2
          return 1
        fi
        sleep 0.5
      done
    fi
  fi

  # The first docker on PATH may be another release's client (a newer CLI that wants BuildKit's buildx);
  # the engine's own client, where Debian's package put it, is used instead.
  local server client
  server="$(docker version --format '{{.Server.Version}}')"
  client="$(docker version --format '{{.Client.Version}}')"
  if [[ "$client" != "$server" && -x /usr/bin/docker ]] && [[ "$(/usr/bin/docker version --format '{{.Client.Version}}')" == "$server" ]]; then
    mkdir -p "$bin_dir"
    ln -sf /usr/bin/docker "$bin_dir/docker"
    export PATH="$bin_dir:$PATH"
    echo "docker: $(command -v docker) is $server, the engine's version, first on PATH (ahead of a $client client)"
    client="$server"
  fi
  echo "docker: engine $server, client $client ($(command -v docker)), $(docker-compose version --short 2>/dev/null | sed 's/^/docker-compose /')"
}

stop_docker_engine() {
  if [[ -n "$engine_pid" ]] && kill -0 "$engine_pid" 2>/dev/null; then
    kill -TERM "$engine_pid"
    local deadline=$((SECONDS + 30))
    while kill -0 "$engine_pid" 2>/dev/null && ((SECONDS <= deadline)); do sleep 0.2; done
    if kill -0 "$engine_pid" 2>/dev/null; then kill -KILL "$engine_pid"; fi
    wait "$engine_pid" 2>/dev/null || true
    echo "docker: stopped the dockerd this started"
  fi
  engine_pid=""
}
