#!/bin/sh
# What the official redis image's entrypoint does for a server: options alone mean redis-server, every
# module in /usr/local/lib/redis/modules is loaded (--loadmodule, after the given arguments), and a server
# started as root gets /data and then runs as the user redis. The official image's redis-server is built
# with protected mode off (a container's port is reached from other containers, never from loopback); this
# one is not, so the option comes first, after a configuration file if one is given, where the given
# options still override it.
set -e
case "$1" in
  -*|*.conf) set -- redis-server "$@" ;;
esac
if [ "$1" = redis-server ]; then
  if [ "$(id -u)" = 0 ]; then
    find . \! -user redis -exec chown redis:redis '{}' +
    exec setpriv --reuid redis --regid redis --clear-groups "$0" "$@"
  fi
  umask 0077
  shift
  if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
    config="$1"
    shift
    set -- redis-server "$config" --protected-mode no "$@"
  else
    set -- redis-server --protected-mode no "$@"
  fi
  for module in /usr/local/lib/redis/modules/*.so; do
    if [ -f "$module" ]; then set -- "$@" --loadmodule "$module"; fi
  done
fi
exec "$@"
