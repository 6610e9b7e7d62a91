# No `# syntax=` line: it makes BuildKit fetch a frontend image from a registry, and builds must work offline
# (with base images built locally). The classic builder and BuildKit both read this file as it is.
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json ./
COPY src ./src
# Source maps and the incremental build's info serve development only: the image runs the JavaScript.
RUN npx tsc -p tsconfig.json --sourceMap false --incremental false --tsBuildInfoFile null
# The browser and Node client the service serves at /sdk/jsondocs.js (its map is served for browsers' tools).
COPY client ./client
COPY openapi/client ./openapi/client
COPY scripts/build-client.ts ./scripts/
RUN node scripts/build-client.ts --force
# The console the service serves at /console, built with the client's sources.
COPY console ./console
COPY scripts/build-console.ts ./scripts/
RUN node scripts/build-console.ts --force

FROM node:24-slim AS production
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
WORKDIR /app
COPY package.json package-lock.json ./
# npm's cache and the compile cache npm keeps for itself in /tmp serve npm only, never the service.
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force && rm -rf /tmp/node-compile-cache
COPY --from=build /app/dist ./dist
COPY --from=build /app/client/dist/jsondocs.js /app/client/dist/jsondocs.js.map ./client/dist/
COPY --from=build /app/console/dist/index.html /app/console/dist/console.js /app/console/dist/console.css ./console/dist/
USER node
EXPOSE 3000
# Asks the service where it listens: PORT, and HOST unless it is every interface.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["node", "-e", "const h = process.env.HOST; const host = !h || h === '0.0.0.0' || h === '::' ? '127.0.0.1' : h.includes(':') ? `[${h}]` : h; fetch(`http://${host}:${process.env.PORT || 3000}/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--min-semi-space-size=8", "--max-semi-space-size=8", "dist/server.js"]
