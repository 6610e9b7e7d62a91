#!/usr/bin/env bash
# Provisions a headless Chromium for the browser tests into .tools/chromium (git-ignored), once, when the
# machine has none: Debian's chromium package and the libraries it needs that the machine lacks (what
# `apt-get install --no-install-recommends chromium` would add), unpacked, not installed. Prints the
# browser's path, then the LD_LIBRARY_PATH it runs with.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/scripts/lib/debian-packages.sh"
target="$root/.tools/chromium"
browser="$target/usr/lib/chromium/chromium"
libraries="$target/usr/lib/x86_64-linux-gnu"

# The suite's projects each run its setup: one provisions, the others wait for it.
mkdir -p "$root/.tools"
exec 9>"$root/.tools/chromium.lock"
flock 9
if [[ ! -x "$browser" ]]; then
  echo "provision: unpacking Debian's chromium into .tools/chromium" >&2
  apt-cache show chromium >/dev/null 2>&1 || refresh_package_lists
  packages="$(apt-get install --simulate --no-install-recommends chromium 2>/dev/null | awk '/^Inst /{ print $2 }')"
  if [[ -z "$packages" ]]; then
    echo "provision: apt-get finds no chromium to unpack" >&2
    exit 1
  fi
  rm -rf "$target.partial"
  # shellcheck disable=SC2086 # one word per package
  unpack_debian_packages "$target.partial" $packages
  rm -rf "$target"
  mv "$target.partial" "$target"
fi
echo "$browser"
echo "$libraries:$libraries/pulseaudio"
