// The metrics listener (README, Metrics): GET /metrics on METRICS_HOST:METRICS_PORT, its own
// Bun.serve, so the public port never answers it and a balancer never exposes it.
import type { Server } from "bun";
import { canonicalAddress } from "../lib/ip-address";
import type { Logger } from "../lib/logger";
import { registry } from "./registry";

const NOT_FOUND = () =>
  new Response("Not Found\n", { status: 404, headers: { "Content-Type": "text/plain" } });

/**
 * Whether the listener took every interface: the unspecified address in any spelling Bun takes
 * (`0.0.0.0`, `0`, `::`, `[::]`, `*`), read from where it really listens.
 */
function listensOnEveryInterface(server: Server<undefined>): boolean {
  const hostname = server.url.hostname;
  if (hostname === "*") return true;
  const address = canonicalAddress(hostname);
  return address === "0.0.0.0" || address === "::";
}

/** Starts the listener; `port` 0 lets the kernel pick (the URL is logged either way). */
export function startMetricsServer(host: string, port: number, logger: Logger): Server<undefined> {
  const server = Bun.serve({
    hostname: host,
    port,
    reusePort: false,
    development: false,
    async fetch(request) {
      const { pathname } = new URL(request.url, "http://metrics");
      if (pathname !== "/metrics") return NOT_FOUND();
      if (request.method !== "GET" && request.method !== "HEAD")
        return new Response(null, { status: 405, headers: { Allow: "GET, HEAD" } });
      // The registry's own content type: the exposition format version its text is written in.
      return new Response(request.method === "HEAD" ? null : await registry.metrics(), {
        headers: { "Content-Type": registry.contentType, "Cache-Control": "no-store" },
      });
    },
    error: () => new Response("metrics unavailable\n", { status: 500 }),
  });
  logger.info("metrics listening", { url: new URL("/metrics", server.url).toString() });
  // The metrics tell anyone who can reach them the routes, the traffic and the shop's sales: on
  // every interface they are one firewall rule away from the internet (README "Metrics").
  if (listensOnEveryInterface(server))
    logger.warn(
      "METRICS_HOST listens on every interface: anyone who reaches this port reads the metrics; set it to 127.0.0.1 or a private address",
      { host },
    );
  return server;
}
