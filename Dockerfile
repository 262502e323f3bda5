# One image for every service: SERVICES picks what a container runs (README: "Run with
# Docker Compose", "Deploy on Kubernetes").

# --- build: every dependency, then the TypeScript build into dist/ ---
FROM node:22.23.3-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY shared ./shared
COPY services ./services
RUN npm run build

# --- production dependencies only (the dev dependency `node` is not needed: the base image has Node 22) ---
FROM node:22.23.3-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# argon2 ships prebuilt binaries, so no install script has to run.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# --- runtime ---
FROM node:22.23.3-bookworm-slim
# docker build --build-arg COMMIT=$(git rev-parse HEAD) --build-arg CREATED=$(date -u +%Y-%m-%dT%H:%M:%SZ) .
# COMMIT is reported in the instance profile; both label the image (OCI annotations).
ARG COMMIT=""
ARG CREATED=""
LABEL org.opencontainers.image.title="memos-service" \
      org.opencontainers.image.description="Memo service: Markdown memos with comments, reactions, relations, attachments, share links and spaces, as Moleculer microservices" \
      org.opencontainers.image.version="0.0.1" \
      org.opencontainers.image.revision="${COMMIT}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.base.name="docker.io/library/node:22.23.3-bookworm-slim"
ENV NODE_ENV=production \
    COMMIT=${COMMIT} \
    SERVICES=gateway,auth,memos,attachments,spaces,instance,ai,webhooks \
    HOST=0.0.0.0 \
    PORT=5230 \
    HEALTH_PORT=3001 \
    METRICS_PORT=3030 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
# The image's `node` user (uid 1000) owns only the data directory; the code stays read-only.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 5230 3001 3030
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.HEALTH_PORT || 3001) + '/healthz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# AsyncLocalStorage on V8's continuation data, not async hooks; two V8 worker threads, each one's
# malloc arena resident (test/support/processes.ts NODE_FLAGS).
CMD ["node", "--experimental-async-context-frame", "--v8-pool-size=2", "dist/services/main.js"]
