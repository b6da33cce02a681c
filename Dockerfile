# syntax=docker/dockerfile:1
# Multi-stage build: compile with dev dependencies, run with production ones only, as a non-root user.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# The SDK is a workspace of this repository: npm ci links it, and the root's prepare script builds it.
COPY sdk ./sdk
RUN npm ci --loglevel=warn
COPY tsconfig.json tsconfig.build.json nest-cli.json ormconfig.ts ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --loglevel=warn

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production PORT=3000
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends curl && rm -rf /var/lib/apt/lists/*
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node package.json ./
USER node
# 3000: the API; 9464: Prometheus metrics (METRICS_PORT), for the monitoring network only.
EXPOSE 3000 9464
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s CMD curl -fsS http://localhost:3000/health/live || exit 1
# Migrations: `node dist/src/migrate.main.js`; admin CLI: `node dist/src/cli/main.js <command>`.
CMD ["node", "dist/src/main.js"]
