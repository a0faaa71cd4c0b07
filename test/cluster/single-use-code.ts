// One single-use code, 60 readers redeeming it at the same moment through the balancer, spread
// over the three instances: exactly one activation, whatever instance each request lands on.
import { call, expectStatus } from "./client";
import type { Person } from "./people";
import type { Report } from "./report";
import { statuses } from "./sessions";

export async function checkSingleUseCode(
  report: Report,
  base: string,
  admin: Person,
  readers: Person[],
): Promise<void> {
  const book = await expectStatus(201, base, "POST", "/book", {
    token: admin.token,
    json: { title: "One code, many readers" },
  });
  const code = await expectStatus(201, base, "POST", "/activation-qr-code", {
    token: admin.token,
    json: { bookId: book.id, maxActivations: 1 },
  });
  const answers = await Promise.all(
    readers.map((reader) =>
      call(base, "POST", "/activation/by-qr-code", {
        token: reader.token,
        json: { code: code.code },
        forwardedFor: reader.address,
      }),
    ),
  );
  const perInstance = new Map<string, number>();
  for (const answer of answers)
    perInstance.set(answer.servedBy ?? "?", (perInstance.get(answer.servedBy ?? "?") ?? 0) + 1);
  report.figure(
    `${readers.length} redemptions of one code, per instance`,
    [...perInstance]
      .sort()
      .map(([name, count]) => `${name} ${count}`)
      .join(", "),
  );
  const created = answers.filter((answer) => answer.status === 201).length;
  const exhausted = answers.filter(
    (answer) => answer.status === 409 && answer.body?.code === "QR_CODE_EXHAUSTED",
  ).length;
  report.check(
    `a single-use code redeemed by ${readers.length} readers at once gives one 201, the rest 409 QR_CODE_EXHAUSTED`,
    created === 1 && exhausted === readers.length - 1,
    statuses(answers),
  );
  report.check(
    "the redemptions were spread over all three instances",
    perInstance.size === 3 && !perInstance.has("?"),
    [...perInstance.keys()].sort().join(", "),
  );
  const count = await expectStatus(200, base, "GET", `/book/${book.id}/activations/count`, {
    token: admin.token,
  });
  const stored = await expectStatus(200, base, "GET", `/activation-qr-code/${code.id}`, {
    token: admin.token,
  });
  report.check(
    "the book has exactly one activation and the code counts one",
    countOf(count) === 1 && stored.activationCount === 1,
    `activations ${JSON.stringify(count)}, activationCount ${stored.activationCount}`,
  );
}

/** A count endpoint's answer, whatever its shape (a number, as JSON or text, or { count }). */
export function countOf(answer: unknown): number {
  if (typeof answer === "number" || typeof answer === "string") return Number(answer);
  if (answer && typeof answer === "object" && "count" in answer)
    return Number((answer as { count: unknown }).count);
  return Number.NaN;
}
