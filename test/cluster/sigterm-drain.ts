// SIGTERM to one instance while a slow client trickles a request body to it and other clients
// keep calling through the balancer: the instance must exit 0 within SHUTDOWN_GRACE + 5 s.
import { connect, type Socket } from "node:net";
import { call } from "./client";
import type { Instance } from "./instances";
import type { Person } from "./people";
import { type Report, tally } from "./report";

const LOAD_CLIENTS = 4;

export async function checkSigtermDrain(options: {
  report: Report;
  base: string;
  admin: Person;
  victim: Instance;
  graceMs: number;
}): Promise<void> {
  const { report, base, admin, victim, graceMs } = options;
  const slow = trickleLogin(victim.port);

  let loading = true;
  const outcomes: (string | number)[] = [];
  const load = Promise.all(
    Array.from({ length: LOAD_CLIENTS }, async () => {
      while (loading) {
        try {
          outcomes.push((await call(base, "GET", "/book/count", { token: admin.token })).status);
        } catch {
          outcomes.push("connection error");
        }
      }
    }),
  );

  await Bun.sleep(1500);
  const signalledAt = performance.now();
  victim.server.kill("SIGTERM");
  const limitMs = graceMs + 5000;
  const code = await Promise.race([victim.server.exited, Bun.sleep(limitMs).then(() => null)]);
  const drainSeconds = (performance.now() - signalledAt) / 1000;
  if (code === null) {
    victim.server.kill("SIGKILL");
    await victim.server.exited;
  }
  await Bun.sleep(1000);
  loading = false;
  await load;
  slow.socket.destroy();

  report.figure(
    "time to drain after SIGTERM",
    code === null
      ? `still running after ${(limitMs / 1000).toFixed(0)} s (then SIGKILLed)`
      : `${drainSeconds.toFixed(2)} s, exit code ${code}`,
  );
  report.figure(
    "the slow client",
    `${slow.sentBytes()} body bytes sent; ${slow.outcome() || "connection still open when the instance was killed"}`,
  );
  const failures = outcomes.filter((outcome) => typeof outcome !== "number" || outcome >= 500);
  report.figure(
    `clients calling through the balancer meanwhile (${LOAD_CLIENTS})`,
    `${outcomes.length} requests, ${failures.length} failures (${tally(outcomes)})`,
  );
  report.check(
    `SIGTERM with a slow client: the instance exits 0 within SHUTDOWN_GRACE + 5 s (${(limitMs / 1000).toFixed(0)} s)`,
    code === 0,
    code === null
      ? `did not exit within ${(limitMs / 1000).toFixed(0)} s`
      : `exited ${code} after ${drainSeconds.toFixed(2)} s`,
  );
}

/** A login whose body (declared 4 KiB) arrives one byte every 500 ms, for as long as it may. */
function trickleLogin(port: number): { socket: Socket; sentBytes(): number; outcome(): string } {
  const socket = connect(port, "127.0.0.1");
  let sent = 0;
  let answer = "";
  let closed = "";
  socket.on("data", (data) => {
    answer += data.toString("latin1");
  });
  socket.on("close", () => {
    const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1];
    closed = status ? `answered ${status}, then closed` : "closed by the server without an answer";
  });
  socket.on("error", () => {});
  socket.write(
    "POST /authentication/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n{",
  );
  const timer = setInterval(() => {
    if (socket.destroyed || sent >= 4000) return clearInterval(timer);
    socket.write(" ");
    sent++;
  }, 500);
  socket.on("close", () => clearInterval(timer));
  return { socket, sentBytes: () => sent, outcome: () => closed };
}
