# bookdist on the official Bun image. Build and run (README "Containers"):
#   docker build -t bookdist . && docker run -p 8080:8080 -v bookdist-data:/data bookdist
# or `docker compose up` with compose.yaml (bookdist and Postgres).
FROM oven/bun:1.4.5-slim AS deps
WORKDIR /app
COPY package.json bun.lock ./
RUN bun install --frozen-lockfile --production

FROM oven/bun:1.4.5-slim
WORKDIR /app
ENV NODE_ENV=production DATA_DIR=/data PORT=8080
COPY --from=deps /app/node_modules ./node_modules
# bunfig.toml: `bun run` must not echo a script's command line (`db copy --to <url>` holds a password).
COPY package.json bun.lock tsconfig.json bunfig.toml ./
COPY src ./src
COPY drizzle ./drizzle
# The image's non-root user `bun` (uid 1000) owns DATA_DIR; a named volume mounted there starts
# as this folder and keeps that owner. A bind-mounted host folder must belong to uid 1000.
RUN mkdir -p /data && chown bun:bun /data && chmod 700 /data
USER bun
VOLUME /data
EXPOSE 8080
# SIGTERM starts the drain of SHUTDOWN_GRACE (30 s by default): give `docker stop -t` (or
# compose's stop_grace_period) more than that, or Docker kills the process at 10 s.
STOPSIGNAL SIGTERM
# Follows PORT, so a container run with another PORT is still checked where it listens.
HEALTHCHECK --interval=30s --timeout=3s --start-period=60s --retries=3 \
  CMD ["bun", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || '8080') + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["bun", "run", "start"]
