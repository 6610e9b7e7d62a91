#!/usr/bin/env bash
# Provisions wrk (an independent HTTP load generator) and Webdis (a C HTTP gateway to Redis) into
# .tools/debian (git-ignored), once, for `npm run bench:wrk`. Both come from Debian's packages,
# unpacked, not installed.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/scripts/lib/debian-packages.sh"
target="$root/.tools/debian"

if [[ -x "$target/usr/bin/wrk" && -x "$target/usr/bin/webdis" ]]; then
  exit 0
fi
echo "provision: unpacking Debian's wrk and webdis into .tools/debian" >&2
unpack_debian_packages "$target" wrk libluajit2-5.1-2 webdis libb64-0d libevent-2.1-7 libhiredis0.14 libjansson4
