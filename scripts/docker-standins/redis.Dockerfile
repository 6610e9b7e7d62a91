# A stand-in for the official redis:8, for an engine that reaches no image registry (built by build.sh):
# Debian bookworm with redis-server 8.2 and the JSON and Search modules the project provisions, laid out as
# the official image lays them out (modules in /usr/local/lib/redis/modules, loaded by the entrypoint; data
# in /data, owned by the user redis), and Debian's redis-cli for health checks.
FROM debian:bookworm
RUN groupadd --system --gid 999 redis \
  && useradd --system --uid 999 --gid redis --home-dir /data --no-create-home redis \
  && mkdir /data && chown redis:redis /data
COPY lib/ /usr/local/lib/
COPY bin/ /usr/local/bin/
COPY modules/ /usr/local/lib/redis/modules/
COPY redis-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
RUN ldconfig && redis-server --version && redis-cli --version
VOLUME /data
WORKDIR /data
ENTRYPOINT ["docker-entrypoint.sh"]
EXPOSE 6379
CMD ["redis-server"]
