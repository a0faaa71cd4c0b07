// Sessions live in the database, not in an instance: a token from a login through the balancer
// works on every instance, and a logout on one ends it on all of them at once.
import { call, expectStatus } from "./client";
import type { Instance } from "./instances";
import { PASSWORD, type Person } from "./people";
import { type Report, tally } from "./report";

export async function checkSessions(
  report: Report,
  base: string,
  instances: Instance[],
  reader: Person,
): Promise<void> {
  const session = await expectStatus(200, base, "POST", "/authentication/login", {
    json: { email: reader.email, password: PASSWORD },
    forwardedFor: reader.address,
  });
  const token: string = session.token;

  const through = await Promise.all(
    Array.from({ length: 6 }, () =>
      call(base, "GET", "/authentication/me", { token, forwardedFor: reader.address }),
    ),
  );
  const servers = new Set(through.map((answer) => answer.servedBy));
  report.check(
    "a token from a login through the balancer works on the instances it lands on",
    through.every((answer) => answer.status === 200) && servers.size === instances.length,
    `6 × GET /authentication/me → ${statuses(through)}, served by ${[...servers].sort().join(", ")}`,
  );

  const direct = await Promise.all(
    instances.map((instance) => call(instance.url, "GET", "/authentication/me", { token })),
  );
  report.check(
    "the same token works on each instance called directly",
    direct.every((answer) => answer.status === 200),
    instances.map((instance, i) => `${instance.name} ${direct[i]!.status}`).join(", "),
  );

  const [first, ...others] = instances;
  const loggedOut = await call(first!.url, "POST", "/authentication/logout", { token, json: {} });
  const afterDirect = await Promise.all(
    others.map((instance) => call(instance.url, "GET", "/authentication/me", { token })),
  );
  const afterThrough = await Promise.all(
    Array.from({ length: 3 }, () =>
      call(base, "GET", "/authentication/me", { token, forwardedFor: reader.address }),
    ),
  );
  report.check(
    `a logout on ${first!.name} ends the token on every instance at once`,
    loggedOut.status === 200 &&
      afterDirect.every((answer) => answer.status === 401) &&
      afterThrough.every((answer) => answer.status === 401),
    `logout ${loggedOut.status}; then ${others.map((instance, i) => `${instance.name} ${afterDirect[i]!.status}`).join(", ")}; through the balancer ${statuses(afterThrough)}`,
  );
}

export function statuses(answers: { status: number }[]): string {
  return tally(answers.map((answer) => answer.status));
}
