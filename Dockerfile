# syntax=docker/dockerfile:1
# Production image: only production dependencies are installed; the TypeScript sources are
# bundled into plain JavaScript (scripts/build.mjs, esbuild: a production dependency), so the
# running bot does not load Node's TypeScript stripper (about 17 MB of memory) nor read a
# thousand files at every start.

FROM node:24-bookworm-slim AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force

FROM node:24-bookworm-slim
# tini is PID 1: it hands SIGTERM to node (whose handler stops live turns gracefully) and
# reaps the MCP server processes the bot starts.
RUN apt-get update \
    && apt-get install -y --no-install-recommends tini \
    && rm -rf /var/lib/apt/lists/*
# /metrics and /healthz listen inside the container on all interfaces; compose publishes
# the port on the host's loopback only.
ENV NODE_ENV=production \
    DATA_DIR=/data \
    METRICS_PORT=9464 \
    METRICS_HOST=0.0.0.0
WORKDIR /app
COPY --from=dependencies /app/node_modules ./node_modules
COPY package.json ./
COPY src ./src
COPY migrations ./migrations
COPY assets ./assets
COPY scripts ./scripts
RUN node scripts/build.mjs && mkdir -p /data && chown node:node /data
# Non-root: the bot needs to write only its data volume.
USER node
VOLUME ["/data"]
EXPOSE 9464
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.METRICS_PORT + '/healthz').then((response) => process.exit(response.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
# A small young generation: loading the SDKs would otherwise leave ~200 MB of RSS behind.
# Hot functions stop at Maglev (--max-opt=2): TurboFan's code would add ~5 MB at rest.
# WebAssembly (the embedded database) stays on V8's baseline compiler: optimizing PGlite's
# 9 MB module took over 500 MB at a first start, for queries no faster (0.35 against 0.29 ms).
# --expose-gc: the bot gives memory back when it falls quiet (src/app/lifecycle/rest-collection.ts).
CMD ["node", "--expose-gc", "--max-semi-space-size=8", "--heap-growing-percent=35", "--liftoff-only", "--max-opt=2", "dist/main.js"]
