// Per-request budget of POST /activation/by-qr-code (issue 26, finding 7): request-budget.ts's
// method for a redemption — the same request answered by apps that add bookdist's layers one at a
// time, from a bare Hono route doing the floor's work by hand (bench/load.ts's floor: the token,
// the session row, BEGIN IMMEDIATE, the code, the held check, the conditional UPDATE, the INSERT,
// COMMIT) to the real app, in one process over one SQLite database. Each step's cost is the CPU
// time it adds per request (process.cpuUsage), median of interleaved rounds. Every batch of
// requests redeems the same codes, one per book, after the activations of the batch before were
// deleted and the codes' slots given back (outside the measured time), so all steps meet the same
// rows. The service step comes before access: access reads the session through the app's read
// snapshot, which a transaction by hand on the same connection would collide with.
//
// Run: bun bench/redeem-budget.ts   (about a minute)
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { Hono } from "hono";
import { TokenSigner } from "../src/auth/tokens";
import { withTransaction } from "../src/db/transaction";
import { requireAccess } from "../src/http/access";
import { MAX_JSON_BODY_BYTES } from "../src/http/bounded-body";
import { clientAddressOf } from "../src/http/client-address";
import { receivePromptBody } from "../src/http/connection-timeouts";
import { handleError } from "../src/http/error-handler";
import { methodNotAllowed } from "../src/http/method-not-allowed";
import { jsonBody } from "../src/http/openapi";
import { OperationNames } from "../src/http/operation-names";
import { requestFrame } from "../src/http/request-frame";
import type { AppBindings } from "../src/http/types";
import * as handlers from "../src/routes/activations/activations.handlers";
import * as routes from "../src/routes/activations/activations.routes";
import { Activation, RedeemInput, toActivation } from "../src/routes/activations/activations.schemas";
import { redeem } from "../src/services/redemption";
import { createRuntime } from "../src/services/runtime";
import { Throttle } from "../src/services/throttle";
import { createTestApp } from "../test/helpers/test-app";
import { FLOOR_SQL } from "./floor-sql";

const ROUNDS = 9;
/** Redemptions per batch: one per book, each book with one code. */
const REQUESTS = 1_000;

const t = await createTestApp({ env: { THROTTLE: "off", LOG_LEVEL: "silent" } });
const reader = await t.user("reader@example.com");
// The floor writes by hand on the connection the app writes on: the app's handle reads through a
// query_only connection (src/db/client.ts), and the writer is the one a transaction is given. The
// floor uses it outside the door, as its hand-written server would; the app's steps never overlap it.
const sqlite = await withTransaction(
  t.deps.db,
  async (tx) => (tx.orm as unknown as { $client: import("bun:sqlite").Database }).$client,
);
const codes: string[] = [];
{
  const now = Date.now();
  const book = sqlite.query(
    "INSERT INTO book (title, author, description, language, created_at, updated_at) VALUES (?1, 'An Author', 'A book.', 'en', ?2, ?2) RETURNING id",
  );
  const code = sqlite.query(
    `INSERT INTO activation_qr_code (book_id, batch_id, code, enabled, max_activations, activation_count, label, expires_at, created_at, updated_at)
     VALUES (?1, NULL, ?2, 1, 1, 0, 'budget', NULL, ?3, ?3)`,
  );
  sqlite.transaction(() => {
    for (let i = 0; i < REQUESTS; i++) {
      const { id } = book.get(`Book ${i}`, now) as { id: number };
      // Canonical codes (digits are in the alphabet), distinct per book.
      const value = `${String(i).padStart(4, "0")}-0000-0000-0000`;
      code.run(id, value, now);
      codes.push(value);
    }
  })();
}
/** Gives every code its slot back: the next batch meets the rows the last one met. */
const reset = () => {
  sqlite.exec("DELETE FROM activation");
  sqlite.exec("UPDATE activation_qr_code SET activation_count = 0, first_redeemed_at = NULL");
};

// The floor's work, by hand, as bench/load.ts's floor server does it.
const sessionById = sqlite.query(FLOOR_SQL.session);
const qrByCode = sqlite.query("SELECT * FROM activation_qr_code WHERE code = ?1 LIMIT 1");
const heldActivation = sqlite.query("SELECT * FROM activation WHERE user_uuid = ?1 AND book_id = ?2 LIMIT 1");
const consume = sqlite.query(
  `UPDATE activation_qr_code SET activation_count = activation_count + 1, updated_at = ?2
   WHERE id = ?1 AND enabled = 1 AND activation_count < max_activations RETURNING id`,
);
const insertActivation = sqlite.query(
  "INSERT INTO activation (book_id, user_uuid, qr_code_id, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4) RETURNING *",
);
const signer = new TokenSigner(t.deps.jwtSecret, t.config.jwtIssuer);
type Row = Record<string, any>;

function callerByHand(authorization: string | undefined): string {
  const claims = signer.verify(authorization?.slice("Bearer ".length) ?? "", new Date());
  const session = claims && (sessionById.get(claims.sid) as Row | null);
  if (!session) throw new Error("the budget's token was refused");
  return session.user_uuid as string;
}

function redeemByHand(userUuid: string, code: string) {
  const now = Date.now();
  sqlite.exec("BEGIN IMMEDIATE");
  try {
    const qr = qrByCode.get(code) as Row | null;
    if (!qr || heldActivation.get(userUuid, qr.book_id) || !consume.get(qr.id, now))
      throw new Error("the budget's code was refused");
    const created = insertActivation.get(qr.book_id, userUuid, qr.id, now) as Row;
    sqlite.exec("COMMIT");
    return {
      id: created.id,
      bookId: created.book_id,
      userUuid: created.user_uuid,
      qrCodeId: created.qr_code_id,
      shopOrderId: null,
      createdAt: new Date(created.created_at).toISOString(),
      updatedAt: new Date(created.updated_at).toISOString(),
    };
  } catch (error) {
    sqlite.exec("ROLLBACK");
    throw error;
  }
}

const runtime = createRuntime(t.deps);
const throttleOn = new Throttle(t.deps.db, true);
const noHook = {
  defaultHook: (result: { success: boolean }) => {
    if (!result.success) throw new Error("the budget's request was refused");
  },
};

interface Step {
  label: string;
  app: { request(path: string, init: RequestInit): Response | Promise<Response> };
}

function steps(): Step[] {
  const path = "/activation/by-qr-code";
  const bare = new Hono();
  bare.post(path, async (c) => {
    const userUuid = callerByHand(c.req.header("authorization"));
    const { code } = (await c.req.json()) as { code: string };
    return c.json(redeemByHand(userUuid, code), 201);
  });
  const layered = (layers: {
    frame?: true;
    allow?: true;
    service?: true;
    access?: true;
    body?: true;
    throttle?: true;
  }) => {
    const app = new OpenAPIHono<AppBindings>(noHook);
    if (layers.frame) app.use(requestFrame(t.deps, runtime, new OperationNames(app.openAPIRegistry)));
    if (layers.allow) app.use(methodNotAllowed(app));
    const route = createRoute({
      method: "post",
      path,
      request: { body: jsonBody(RedeemInput) },
      middleware: [
        ...(layers.access ? [requireAccess("user")] : []),
        ...(layers.body ? [receivePromptBody(MAX_JSON_BODY_BYTES)] : []),
      ],
      responses: { 201: { description: "-", content: { "application/json": { schema: Activation } } } },
    });
    app.openapi(route, async (c) => {
      const input = c.req.valid("json");
      if (!layers.service)
        return c.json(redeemByHand(callerByHand(c.req.header("authorization")), input.code), 201);
      const principal = layers.access
        ? c.get("principal")
        : ({
            userUuid: callerByHand(c.req.header("authorization")),
          } as AppBindings["Variables"]["principal"]);
      const { activation } = await redeem(
        {
          db: t.deps.db,
          store: t.deps.store,
          throttle: layers.throttle ? throttleOn : runtime.throttle,
          now: t.deps.clock.now(),
          clientAddress: layers.frame ? clientAddressOf(c) : "127.0.0.1",
        },
        principal,
        input,
      );
      return c.json(toActivation(activation), 201);
    });
    app.onError(handleError);
    return app;
  };
  return [
    { label: "the floor's work on a bare Hono route", app: bare },
    { label: "+ @hono/zod-openapi route, body validated", app: layered({}) },
    { label: "+ request frame (id, security headers, charset)", app: layered({ frame: true }) },
    { label: "+ 405 check", app: layered({ frame: true, allow: true }) },
    {
      label: "+ service: redeem() (transaction, repositories, mapping)",
      app: layered({ frame: true, allow: true, service: true }),
    },
    {
      label: "+ access: token, session (repository), principal",
      app: layered({ frame: true, allow: true, service: true, access: true }),
    },
    {
      label: "+ the body read at once, bounded (receivePromptBody)",
      app: layered({ frame: true, allow: true, service: true, access: true, body: true }),
    },
    {
      label: "(+ throttle on: not in the load bench, which runs THROTTLE=off)",
      app: layered({ frame: true, allow: true, service: true, access: true, body: true, throttle: true }),
    },
    { label: "+ bookdist's route (defineRoute) and handler, on their own", app: ownRoute() },
    { label: "= the real app (all routes, THROTTLE=off)", app: t.app },
  ];
}

/** The real route definition and handler, in an app of their own with the frame and the 405 check. */
function ownRoute() {
  const app = new OpenAPIHono<AppBindings>(noHook);
  app.use(requestFrame(t.deps, runtime, new OperationNames(app.openAPIRegistry)));
  app.use(methodNotAllowed(app));
  app.openapi(routes.redeemActivationQrCode, handlers.redeemActivationQrCode);
  app.onError(handleError);
  return app;
}

/** Each request in an event-loop turn of its own, as request-budget.ts does. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** `count` redemptions of the first codes, after a reset. */
async function batch(step: Step, count: number): Promise<void> {
  reset();
  for (let i = 0; i < count; i++) {
    const response = await step.app.request("/activation/by-qr-code", {
      method: "POST",
      headers: { Authorization: `Bearer ${reader.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ code: codes[i] }),
    });
    if (response.status !== 201)
      throw new Error(`${step.label}: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
    await nextTurn();
  }
}

const list = steps();
const samples = list.map(() => [] as number[]);
for (let round = 0; round < ROUNDS; round++) {
  for (const [k, step] of list.entries()) {
    await batch(step, REQUESTS / 10);
    const before = process.cpuUsage();
    await batch(step, REQUESTS);
    const used = process.cpuUsage(before);
    samples[k]!.push((used.user + used.system) / REQUESTS);
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const width = Math.max(...list.map((s) => s.label.length));
console.log("\nPOST /activation/by-qr-code: CPU µs per request, in-process");
let previous = 0;
for (const [k, step] of list.entries()) {
  const value = median(samples[k]!);
  const added = k === 0 || k === list.length - 1 ? "" : `  ${(value - previous).toFixed(1).padStart(6)}`;
  console.log(`${step.label.padEnd(width)}  ${value.toFixed(1).padStart(7)}${added}`);
  previous = value;
}
console.log(
  `\nMedian of ${ROUNDS} interleaved rounds of ${REQUESTS} redemptions per step (fresh codes, one reader, ${REQUESTS} books). A step's added cost within a few µs is noise on a shared VM.`,
);
await t.close();
