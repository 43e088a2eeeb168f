# syntax=docker/dockerfile:1
# Production image: Node 24 LTS runs the TypeScript sources directly (type stripping), so
# there is no build step; only production dependencies are installed.

FROM node:24-bookworm-slim AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force

FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    DATA_DIR=/data
WORKDIR /app
COPY --from=dependencies /app/node_modules ./node_modules
COPY package.json ./
COPY src ./src
COPY migrations ./migrations
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 9464
# A small young generation: loading the SDKs would otherwise leave ~200 MB of RSS behind.
CMD ["node", "--max-semi-space-size=8", "src/index.ts"]
