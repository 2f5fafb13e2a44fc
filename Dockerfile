# One image, three commands (docker-compose.yml): `node dist/migrate.js` once per deploy, then any number
# of `node dist/api.js` and `node dist/worker.js`. Built in two stages so the image holds the compiled
# service and its production dependencies only: no TypeScript, no loader, no test tools.

# ---- build: every dependency, then `npm run build` → dist/ (compiled JS, page assets, entry points,
# the prebuilt Temporal workflow bundle).
FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# `npm ci` refuses this lock file (npm leaves other platforms' optional binaries out of it, and ci then
# calls the two out of sync); `npm install` honours the lock. The stamp tells scripts/run.sh, behind
# `npm run build`, that the install is done.
RUN npm install --no-audit --no-fund --loglevel=error && touch node_modules/.payments-install-stamp
COPY tsconfig.json tsconfig.build.json ./
# The build's own two scripts only: the rehearsal's scripts beside them are no part of the image, and
# copying them made every change to them build the service again.
COPY scripts/run.sh scripts/build.ts ./scripts/
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY contracts ./contracts
RUN npm run build

# ---- runtime: production dependencies and dist/, run by the unprivileged `node` user.
FROM node:24-bookworm-slim AS runtime
WORKDIR /app
# NODE_COMPILE_CACHE: a restarted container skips compiling its modules again (the entry points enable it).
ENV NODE_ENV=production \
    NODE_COMPILE_CACHE=/tmp/node-compile-cache \
    HOST=0.0.0.0 \
    DATA_DIR=/tmp/payments
COPY package.json package-lock.json ./
# The same install test/faults/production-build.test.ts runs the build on. No optional packages (embedded
# PostgreSQL's and SWC's binaries, the npm registry's Node: nothing production loads), no install scripts.
RUN npm install --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund --loglevel=error \
 && npm cache clean --force
COPY --from=build /src/dist ./dist
USER node
# 3443: the API (HTTPS, or HTTP behind a TLS-terminating proxy with TRUST_PROXY); 9464: the admin port
# (/healthz, /readyz, /metrics), which the API never serves. It listens on the container's loopback only
# (the health check below reaches it there); a load balancer that checks /readyz from outside needs
# ADMIN_HOST=0.0.0.0, and then ADMIN_TOKEN, which everything on the port but the probes asks for.
EXPOSE 3443 9464
# Liveness: the process's event loop answers. /readyz (database and Temporal reachable) is for the load
# balancer and compose's depends_on; a container is not restarted because a dependency is down.
# dist/migrate.js opens no admin port: run it with --no-healthcheck, or as compose's one-shot service.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.ADMIN_PORT ?? 9464}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--enable-source-maps", "dist/api.js"]
