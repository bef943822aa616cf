# netops-bot: bundle the TypeScript with esbuild, then run it on a slim image with production
# dependencies only (kept for the packages the bundle leaves outside: WebAssembly and fonts).

ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts/ensure-build.mjs scripts/bundle.mjs ./scripts/
COPY src ./src
RUN npm run build
# The bundle has no source maps; its metafile (which sources went where) is for the tests only.
RUN rm -f dist/.bundle-meta.json dist/.build-stamp

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    DATA_DIR=/data \
    PORT=3000
WORKDIR /app
COPY package.json package-lock.json ./
# In the same layer: npm's cache and logs (/root/.npm) and Node's compile cache are install leftovers.
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force \
 && rm -rf /root/.npm /tmp/node-compile-cache
COPY --from=build /app/dist ./dist
COPY manifest.yml ./
# The journal of change requests and bot-kept data live here: mount a volume so they survive upgrades.
# ./data (DATA_DIR's default, which an env file with DATA_DIR= or DATA_DIR=./data gives) is the same
# directory, so the bot still writes to the volume, never to /app (where it may not).
RUN mkdir -p /data && chown node:node /data && ln -s /data /app/data
VOLUME ["/data"]
USER node
EXPOSE 3000
# /healthz is served in HTTP and in Socket Mode alike.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/main.js"]
