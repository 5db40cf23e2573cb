# syntax=docker/dockerfile:1
# The service image: compiled in a stage that has the dev dependencies (TypeScript, Vite), run from a
# stage that has only the production dependencies, the compiled dist/src and the built dist/console. .ci/image.sh replays the COPY,
# RUN npm, CMD and HEALTHCHECK lines below without Docker, so a change here is checked there.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY . .
# Compiles src, test and bench (the project's one build) and builds the operator console with Vite
# into dist/console; only dist/src and dist/console go into the image.
RUN npm run build

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    DATA_DIR=/data
WORKDIR /app
COPY package.json package-lock.json ./
# The package.json allowScripts list is honoured; its dev entries (node@24, @swc/core) are not installed here.
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --no-audit --no-fund
# The migrations are compiled modules of dist/src/db/migrations, and tsc copies the one non-TS
# runtime file (src/shared/password/bcrypt.worker.mjs, allowJs), so dist/src is all the service reads
# besides node_modules and package.json (for its version).
COPY --from=build /app/dist/src ./dist/src
# The operator console (GET /console): static files built above, served by dist/src with no package
# of the build (Vite, React, Apollo Client are bundled in them), and its trusted-documents manifest,
# dist/console/persisted-documents.json, for GRAPHQL_TRUSTED_DOCUMENTS.
COPY --from=build /app/dist/console ./dist/console
# DATA_DIR: local avatars, uploads in flight. A named volume mounted here starts owned by node.
RUN mkdir -p /data && chown node:node /data
USER node
# 4000: the API; 9464: GET /metrics (METRICS_PORT), for Prometheus on the internal network only.
EXPOSE 4000 9464
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||4000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node itself is the container's process (no npm or sh in between), so docker stop's SIGTERM reaches
# it: the service drains in-flight requests and exits 0 within 10 s.
CMD ["node", "dist/src/main.js"]
