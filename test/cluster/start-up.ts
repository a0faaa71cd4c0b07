// Three instances started at the same moment on an empty database: all must come up, answer
// a load balancer's HTTP/1.0 probe, and be seen UP by HAProxy's own health check.
import { connect } from "node:net";
import type { Haproxy } from "./haproxy";
import { alive, exitReason, type Instance, waitHealthy } from "./instances";
import type { Report } from "./report";

/** Checks the start-up; false when the later scenarios cannot run (fewer than three UP). */
export async function checkStartUp(
  report: Report,
  instances: Instance[],
  balancer: Haproxy,
): Promise<boolean> {
  const started = performance.now();
  const healthy = await Promise.all(instances.map((instance) => waitHealthy(instance, 30_000)));
  report.figure(
    "time until every instance that came up answered /health",
    `${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  const down = instances.filter((_, i) => !healthy[i]);
  report.check(
    "all three instances come up",
    down.length === 0,
    down.length === 0
      ? "each answers GET /health with 200"
      : down
          .map(
            (instance) =>
              `${instance.name} ${alive(instance) ? "never healthy" : `exited (${instance.exit ?? "?"})`}: ${exitReason(instance)}`,
          )
          .join("; "),
  );

  for (const instance of instances.filter(alive)) {
    const probe = await rawRequest(instance.port, "OPTIONS / HTTP/1.0\r\n\r\n");
    report.check(
      `${instance.name}: OPTIONS / HTTP/1.0 without Host gets a problem, not Bun's error page`,
      probe.status !== 500 && probe.contentType.startsWith("application/problem+json"),
      `${probe.status} ${probe.contentType || "(no content-type)"}, ${probe.bytes} bytes`,
    );
    const health = await rawRequest(instance.port, "GET /health HTTP/1.0\r\n\r\n");
    report.check(
      `${instance.name}: GET /health HTTP/1.0 without Host (HAProxy's check) answers 200`,
      health.status === 200,
      `${health.status} ${health.contentType || "(no content-type)"}, ${health.bytes} bytes`,
    );
  }

  return checkBackendsUp(report, instances.length, balancer);
}

/**
 * Waits (10 s at most) until HAProxy has health-checked every backend UP. An instance that
 * answers /health is not yet one the balancer sends to: its first check may still be pending.
 */
export async function checkBackendsUp(report: Report, count: number, balancer: Haproxy): Promise<boolean> {
  const deadline = Date.now() + 10_000;
  let states = await balancer.backends();
  while (Date.now() < deadline && !states.every(upAndChecked)) {
    await Bun.sleep(250);
    states = await balancer.backends();
  }
  return report.check(
    "HAProxy sees all three backends UP (show stat)",
    states.length === count && states.every(upAndChecked),
    states
      .map(
        (state) =>
          `${state.name} ${state.status} ${state.checkStatus}${state.checkCode ? ` ${state.checkCode}` : ""}`,
      )
      .join(", "),
  );
}

/** UP after a health check that passed (HAProxy starts servers UP before any check ran). */
export function upAndChecked(state: { status: string; checkStatus: string }): boolean {
  return state.status === "UP" && state.checkStatus === "L7OK";
}

/** One request written byte for byte as a load balancer's probe sends it (no Host header). */
export async function rawRequest(
  port: number,
  request: string,
): Promise<{ status: number; contentType: string; bytes: number }> {
  const text = await new Promise<string>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    const done = () => {
      socket.destroy();
      resolve(received);
    };
    socket.setTimeout(5000, done);
    socket.on("data", (data) => {
      received += data.toString("latin1");
    });
    socket.on("end", done);
    socket.on("error", done);
    socket.write(request);
  });
  const split = text.indexOf("\r\n\r\n");
  const head = split < 0 ? text : text.slice(0, split);
  const body = split < 0 ? "" : text.slice(split + 4);
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
  const contentType = /\r\ncontent-type: *([^\r\n]*)/i.exec(head)?.[1] ?? "";
  return { status, contentType, bytes: body.length };
}
