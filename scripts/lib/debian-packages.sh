# Sourced by the provisioning scripts. unpack_debian_packages <target> <package>...: downloads Debian's
# packages (never installs them) and unpacks them under <target>; their libraries land in
# <target>/usr/lib/x86_64-linux-gnu. Refreshes the package lists once if they are missing or stale.
unpack_debian_packages() {
  local target="$1"
  shift
  local downloads
  downloads="$(mktemp -d)"
  if ! (cd "$downloads" && apt-get download "$@" >/dev/null 2>&1); then
    if [[ "$(id -u)" == "0" ]]; then
      apt-get update >/dev/null
    else
      sudo apt-get update >/dev/null
    fi
    (cd "$downloads" && apt-get download "$@" >/dev/null)
  fi
  mkdir -p "$target"
  for deb in "$downloads"/*.deb; do
    dpkg -x "$deb" "$target"
  done
  rm -rf "$downloads"
}
