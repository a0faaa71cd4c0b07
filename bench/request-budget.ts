// Per-request budget of GET /book/{id} and GET /book/my-books (issue 17): the same request
// answered by apps that add bookdist's layers one at a time, from a bare Hono route doing the
// floor's work by hand (bun bench/load.ts) to the real app, in one process over one SQLite
// database. Each step's cost is the CPU time it adds per request (process.cpuUsage: every
// thread, so the garbage collector's helpers count too), median of interleaved rounds.
// In-process (`app.request`): the HTTP server's own share, the same for app and floor, is left out.
//
// Run: bun bench/request-budget.ts   (about a minute)
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { Hono, type MiddlewareHandler } from "hono";
import { TokenSigner } from "../src/auth/tokens";
import { requireAccess } from "../src/http/access";
import { handleError } from "../src/http/error-handler";
import { methodNotAllowed } from "../src/http/method-not-allowed";
import { IdParam } from "../src/http/openapi";
import { OperationNames } from "../src/http/operation-names";
import { requestFrame } from "../src/http/request-frame";
import { listQuery } from "../src/http/sort-and-page";
import type { AppBindings } from "../src/http/types";
import { listHeldBooks } from "../src/repositories/activations";
import { findBook } from "../src/repositories/books";
import { toBook } from "../src/routes/books/books.schemas";
import { toMyBook } from "../src/routes/reader/reader.schemas";
import { createRuntime } from "../src/services/runtime";
import { createTestApp } from "../test/helpers/test-app";
import { FLOOR_SQL } from "./floor-sql";

const ROUNDS = 9;
const REQUESTS = { book: 5_000, mybooks: 2_000 };

const t = await createTestApp({ env: { THROTTLE: "off", LOG_LEVEL: "silent" } });
const admin = await t.admin();
const reader = await t.user("reader@example.com");
for (let i = 0; i < 50; i++) {
  await t.call("POST", "/book", {
    token: admin.token,
    json: { title: `Book ${i}`, author: "An Author", description: "A book.", language: "en" },
  });
}
for (let b = 1; b <= 5; b++) {
  await t.call("POST", "/activation", { token: admin.token, json: { bookId: b * 3, userUuid: reader.uuid } });
}

// The floor's work, by hand, as bench/load.ts's floor server does it.
const sqlite = (t.deps.db.orm as unknown as { $client: import("bun:sqlite").Database }).$client;
const sessionById = sqlite.query(FLOOR_SQL.session);
const bookById = sqlite.query(FLOOR_SQL.book);
const heldBooks = sqlite.query(FLOOR_SQL.heldBooks);
const signer = new TokenSigner(t.deps.jwtSecret, t.config.jwtIssuer);
type Row = Record<string, number | string | null>;
const iso = (ms: number | string | null) => (ms === null ? null : new Date(ms).toISOString());
const bookOf = (r: Row) => ({
  id: r.id,
  title: r.title,
  author: r.author,
  isbn: r.isbn,
  description: r.description,
  language: r.language,
  cover: null,
  createdAt: iso(r.created_at!),
  updatedAt: iso(r.updated_at!),
});
/** The floor's token check: the signature, then the session row. */
function callerByHand(authorization: string | undefined): string {
  const claims = signer.verify(authorization?.slice("Bearer ".length) ?? "", new Date());
  const session = claims && (sessionById.get(claims.sid) as Row | null);
  if (!session) throw new Error("the budget's token was refused");
  return session.user_uuid as string;
}
const shelfByHand = (userUuid: string) =>
  (heldBooks.all(userUuid) as Row[]).map((r) => ({
    activationId: r.a_id,
    activatedAt: iso(r.a_created_at!),
    book: bookOf(r),
    newestVersion: null,
  }));

const runtime = createRuntime(t.deps);
const noHook = {
  defaultHook: (result: { success: boolean }) => {
    if (!result.success) throw new Error("the budget's request was refused");
  },
};

/** One step of the budget: what the app of this step adds to the one before. */
interface Step {
  label: string;
  app: { request(path: string, init: RequestInit): Response | Promise<Response> };
}

/** Apps adding bookdist's layers in the order a request meets them; the last is the real app. */
function steps(kind: "book" | "mybooks"): Step[] {
  const path = kind === "book" ? "/book/{id}" : "/book/my-books";
  const request = kind === "book" ? { params: IdParam } : { query: listQuery(["activatedAt", "title"]) };
  const byHand = (authorization: string | undefined, id: string | undefined) => {
    const userUuid = callerByHand(authorization);
    return kind === "book" ? bookOf(bookById.get(Number(id)) as Row) : shelfByHand(userUuid);
  };
  const bare = new Hono();
  bare.get(path.replace("{id}", ":id"), async (c) => {
    const body = byHand(c.req.header("authorization"), c.req.param("id"));
    await null; // the app awaits between its session and its record
    return c.json(body);
  });
  /** An OpenAPIHono route with zod's request validation and `layers` in front of it. */
  const layered = (layers: { frame?: true; allow?: true; access?: true; repository?: true }) => {
    const app = new OpenAPIHono<AppBindings>(noHook);
    if (layers.frame) app.use(requestFrame(t.deps, runtime, new OperationNames(app.openAPIRegistry)));
    if (layers.allow) app.use(methodNotAllowed(app));
    const middleware: MiddlewareHandler<AppBindings>[] = layers.access ? [requireAccess("user")] : [];
    const route = createRoute({
      method: "get",
      path,
      request,
      middleware,
      responses: { 200: { description: "-", content: { "application/json": { schema: z.unknown() } } } },
    });
    app.openapi(route, async (c) => {
      if (!layers.access) {
        const body = byHand(c.req.header("authorization"), c.req.param("id"));
        await null;
        return c.json(body, 200);
      }
      const { userUuid } = c.get("principal");
      if (!layers.repository) {
        await null;
        const body =
          kind === "book" ? bookOf(bookById.get(Number(c.req.param("id"))) as Row) : shelfByHand(userUuid);
        return c.json(body, 200);
      }
      if (kind === "book")
        return c.json(toBook((await findBook(t.deps.db, Number(c.req.param("id"))))!), 200);
      return c.json((await listHeldBooks(t.deps.db, userUuid, { sort: [] })).map(toMyBook), 200);
    });
    app.onError(handleError);
    return app;
  };
  return [
    { label: "the floor's work on a bare Hono route", app: bare },
    { label: "+ @hono/zod-openapi route, request validated", app: layered({}) },
    { label: "+ request frame (id, security headers, charset)", app: layered({ frame: true }) },
    { label: "+ 405 check", app: layered({ frame: true, allow: true }) },
    {
      label: "+ access: token, session (repository), principal",
      app: layered({ frame: true, allow: true, access: true }),
    },
    {
      label: "+ record through the repository, schema mapping",
      app: layered({ frame: true, allow: true, access: true, repository: true }),
    },
    { label: "= the real app (all routes, handler shapes, HAL check)", app: t.app },
  ];
}

/**
 * Each request in a turn of the event loop of its own, the least a server under load shares a
 * turn with: the app's SQLite read snapshot (src/db/read-snapshot.ts) then spans one request, as
 * at worst in the server, and the floor's statements, on the same connection, run outside it.
 */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

async function measure(kind: "book" | "mybooks"): Promise<void> {
  const list = steps(kind);
  const init = { headers: { Authorization: `Bearer ${reader.token}` } };
  const path = (i: number) => (kind === "book" ? `/book/${(i % 50) + 1}` : "/book/my-books");
  const n = REQUESTS[kind];
  const samples = list.map(() => [] as number[]);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [k, step] of list.entries()) {
      for (let i = 0; i < n / 10; i++) {
        await (await step.app.request(path(i), init)).arrayBuffer();
        await nextTurn();
      }
      const before = process.cpuUsage();
      for (let i = 0; i < n; i++) {
        const response = await step.app.request(path(i), init);
        if (response.status !== 200)
          throw new Error(`${step.label}: ${response.status} ${await response.text()}`);
        await response.arrayBuffer();
        await nextTurn();
      }
      const used = process.cpuUsage(before);
      samples[k]!.push((used.user + used.system) / n);
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const width = Math.max(...list.map((s) => s.label.length));
  console.log(`\nGET ${kind === "book" ? "/book/{id}" : "/book/my-books"}: CPU µs per request, in-process`);
  let previous = 0;
  for (const [k, step] of list.entries()) {
    const value = median(samples[k]!);
    const added = k === 0 || k === list.length - 1 ? "" : `  ${(value - previous).toFixed(1).padStart(6)}`;
    console.log(`${step.label.padEnd(width)}  ${value.toFixed(1).padStart(7)}${added}`);
    previous = value;
  }
}

await measure("book");
await measure("mybooks");
console.log(
  `\nMedian of ${ROUNDS} interleaved rounds of ${REQUESTS.book} (book) and ${REQUESTS.mybooks} (my-books) requests per step; one SQLite file, 50 books, a reader holding 5. A step's added cost within ~1 µs is noise on a shared VM.`,
);
await t.close();
