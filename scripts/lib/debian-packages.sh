# Sourced by the provisioning scripts. Debian's packages are downloaded and unpacked, never installed.

# Refreshes the package lists (as root, or through sudo).
refresh_package_lists() {
  if [[ "$(id -u)" == "0" ]]; then
    apt-get update >/dev/null
  else
    sudo apt-get update >/dev/null
  fi
}

# unpack_debian_packages <target> <package>...: downloads the packages and unpacks them under <target>;
# their libraries land in <target>/usr/lib/x86_64-linux-gnu.
unpack_debian_packages() {
  local target="$1"
  shift
  local downloads
  downloads="$(mktemp -d)"
  if ! (cd "$downloads" && apt-get download "$@" >/dev/null 2>&1); then
    refresh_package_lists
    (cd "$downloads" && apt-get download "$@" >/dev/null)
  fi
  mkdir -p "$target"
  for deb in "$downloads"/*.deb; do
    dpkg -x "$deb" "$target"
  done
  rm -rf "$downloads"
}
