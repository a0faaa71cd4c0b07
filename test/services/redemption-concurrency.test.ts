// Racing redemptions: the database, not the application, must keep a code from handing out more
// than maxActivations. On SQLite withTransaction serialises the transactions; on Postgres
// (TEST_DATABASE_URL) they run on a pool of connections and race for real.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { count, eq } from "drizzle-orm";
import { TokenSigner } from "../../src/auth/tokens";
import { withTransaction } from "../../src/db/transaction";
import { deleteShopActivation, insertShopActivation } from "../../src/repositories/activations";
import { insertSession } from "../../src/repositories/sessions";
import { Activation } from "../../src/routes/activations/activations.schemas";
import { Book } from "../../src/routes/books/books.schemas";
import { ActivationQrCode } from "../../src/routes/qr-codes/qr-codes.schemas";
import { testDialect } from "../helpers/databases";
import { bodyAs, expectProblem } from "../helpers/responses";
import { createTestApp, type TestApp } from "../helpers/test-app";

const PARALLEL = 60;

describe(`concurrent redemptions (${testDialect})`, () => {
  let t: TestApp;
  let adminToken: string;
  let signer: TokenSigner;
  beforeAll(async () => {
    // Throttling off: the losers' failures are expected here, not guesses.
    t = await createTestApp({ env: { THROTTLE: "off" } });
    adminToken = (await t.admin()).token;
    signer = new TokenSigner(t.deps.jwtSecret, t.config.jwtIssuer);
  });
  afterAll(() => t.close());

  /** A user with a live session, made directly: registering 60 users would mostly measure bcrypt. */
  const mintUser = async () => {
    const uuid = crypto.randomUUID();
    const sid = crypto.randomUUID();
    const now = t.clock.now();
    const expiresAt = new Date(now.getTime() + 86_400_000);
    await insertSession(t.deps.db, {
      id: sid,
      userUuid: uuid,
      storeUserId: "0",
      createdAt: now,
      lastSeenAt: now,
      expiresAt,
      userAgent: null,
      clientAddress: null,
      // Checked just now: the fixed clock never reaches the re-check that would find no such user.
      checkedAt: now,
    });
    const token = signer.sign({
      sub: uuid,
      sid,
      roles: ["user"],
      email: `${uuid}@example.com`,
      iat: Math.floor(now.getTime() / 1000),
      exp: Math.floor(expiresAt.getTime() / 1000),
    });
    return { uuid, token };
  };

  const setUp = async (maxActivations: number) => {
    const book = await bodyAs(
      await t.call("POST", "/book", { token: adminToken, json: { title: `k=${maxActivations}` } }),
      Book,
    );
    const created = await t.call("POST", "/activation-qr-code", {
      token: adminToken,
      json: { bookId: book.id, maxActivations },
    });
    const qr = await bodyAs(created, ActivationQrCode);
    return { bookId: book.id, qr };
  };

  const activationsOf = async (bookId: number) => {
    const { db } = t.deps;
    const [row] = await db.orm
      .select({ n: count() })
      .from(db.tables.activation)
      .where(eq(db.tables.activation.bookId, bookId));
    return Number(row?.n);
  };

  const activationCountOf = async (qrId: number) => {
    const response = await t.call("GET", `/activation-qr-code/${qrId}`, { token: adminToken });
    return (await bodyAs(response, ActivationQrCode)).activationCount;
  };

  for (const k of [1, 5]) {
    test(`${PARALLEL} users redeem one code with maxActivations=${k} at once: exactly ${k} activations`, async () => {
      const { bookId, qr } = await setUp(k);
      const users = await Promise.all(Array.from({ length: PARALLEL }, mintUser));
      const responses = await Promise.all(
        users.map((user) =>
          t.call("POST", "/activation/by-qr-code", { token: user.token, json: { code: qr.code } }),
        ),
      );
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status === 201)).toHaveLength(k);
      expect(statuses.filter((status) => status === 409)).toHaveLength(PARALLEL - k);
      const winners = await Promise.all(
        responses
          .filter((response) => response.status === 201)
          .map((response) => bodyAs(response, Activation)),
      );
      expect(new Set(winners.map((a) => a.userUuid)).size).toBe(k);
      expect(winners.every((a) => a.qrCodeId === qr.id && a.bookId === bookId)).toBe(true);
      for (const response of responses.filter((response) => response.status === 409))
        await expectProblem(response, 409, "QR_CODE_EXHAUSTED");
      expect(await activationsOf(bookId)).toBe(k);
      expect(await activationCountOf(qr.id)).toBe(k);
    });
  }

  test("one user redeeming twenty times at once gets one activation, and the code is consumed once", async () => {
    const { bookId, qr } = await setUp(5);
    const user = await mintUser();
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        t.call("POST", "/activation/by-qr-code", { token: user.token, json: { code: qr.code } }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 200)).toHaveLength(19);
    const activations = await Promise.all(
      responses.map(async (response) => await bodyAs(response, Activation)),
    );
    expect(new Set(activations.map((a) => a.id)).size).toBe(1);
    expect(await activationsOf(bookId)).toBe(1);
    expect(await activationCountOf(qr.id)).toBe(1);
  });

  test("one user, one single-use code, racing: one 201, the rest 200 with the same activation", async () => {
    const { bookId, qr } = await setUp(1);
    const user = await mintUser();
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        t.call("POST", "/activation/by-qr-code", { token: user.token, json: { code: qr.code } }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([201, ...Array.from({ length: 19 }, () => 200)].sort());
    expect(await activationsOf(bookId)).toBe(1);
    expect(await activationCountOf(qr.id)).toBe(1);
  });

  /** A book held by a shop order alone (as ShopSync grants it), and twenty single-use codes of it. */
  const shopHeld = async () => {
    const { bookId } = await setUp(1);
    const batch = await t.call("POST", "/activation-qr-code/batch", {
      token: adminToken,
      json: { bookId, quantity: 20, maxActivations: 1 },
    });
    const codes = (await batch.json()) as { id: number; code: string }[];
    const user = await mintUser();
    const shopOrderId = 990_000 + bookId;
    const held = await withTransaction(t.deps.db, (tx) =>
      insertShopActivation(tx, { bookId, userUuid: user.uuid, shopOrderId }, t.clock.now()),
    );
    const redeemAll = () =>
      Promise.all(
        codes.map((qr) =>
          t.call("POST", "/activation/by-qr-code", { token: user.token, json: { code: qr.code } }),
        ),
      );
    /** The codes consumed, by id: exactly the one the book's activation carries, once. */
    const consumed = async () => {
      const counts = await Promise.all(codes.map((qr) => activationCountOf(qr.id)));
      return codes.filter((_, i) => counts[i] === 1).map((qr) => qr.id);
    };
    return { bookId, held: held!, shopOrderId, redeemAll, consumed };
  };

  test("twenty codes redeemed at once on a book a shop order holds: one consumed, recorded on it", async () => {
    const { bookId, held, redeemAll, consumed } = await shopHeld();
    const responses = await redeemAll();
    expect(responses.map((response) => response.status)).toEqual(Array.from({ length: 20 }, () => 200));
    const answered = await Promise.all(responses.map((response) => bodyAs(response, Activation)));
    expect(new Set(answered.map((a) => a.id))).toEqual(new Set([held.id]));
    const used = await consumed();
    expect(used).toHaveLength(1);
    expect(new Set(answered.map((a) => a.qrCodeId))).toEqual(new Set(used));
    expect(await activationsOf(bookId)).toBe(1);
  });

  test("the order's revocation racing those redemptions: one activation, on the one code consumed", async () => {
    const { bookId, held, shopOrderId, redeemAll, consumed } = await shopHeld();
    const [responses, revoked] = await Promise.all([
      redeemAll(),
      withTransaction(t.deps.db, (tx) => deleteShopActivation(tx, held.id, shopOrderId, t.clock.now())),
    ]);
    const statuses = responses.map((response) => response.status);
    // Revoked first: the first redemption made a new activation; else the code kept the old one.
    expect(statuses.filter((status) => status === 201)).toHaveLength(revoked === "deleted" ? 1 : 0);
    expect(statuses.filter((status) => status === 200)).toHaveLength(revoked === "deleted" ? 19 : 20);
    expect(["deleted", "detached"]).toContain(revoked);
    const { db } = t.deps;
    const rows = await db.orm
      .select()
      .from(db.tables.activation)
      .where(eq(db.tables.activation.bookId, bookId));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.shopOrderId).toBeNull();
    expect(await consumed()).toEqual([rows[0]!.qrCodeId!]);
    expect(await activationsOf(bookId)).toBe(1);
  });

  test("redemptions racing deletions never break the count", async () => {
    const { bookId, qr } = await setUp(3);
    const users = await Promise.all(Array.from({ length: 40 }, mintUser));
    // Three holders first, then: their activations are deleted while 40 others race for the slots.
    const holders = await Promise.all(Array.from({ length: 3 }, mintUser));
    const held = [];
    for (const holder of holders) {
      const response = await t.call("POST", "/activation/by-qr-code", {
        token: holder.token,
        json: { code: qr.code },
      });
      held.push(await bodyAs(response, Activation));
    }
    const [redemptions, deletions] = await Promise.all([
      Promise.all(
        users.map((user) =>
          t.call("POST", "/activation/by-qr-code", { token: user.token, json: { code: qr.code } }),
        ),
      ),
      Promise.all(held.map((a) => t.call("DELETE", `/activation/${a.id}`, { token: adminToken }))),
    ]);
    expect(deletions.map((response) => response.status)).toEqual([200, 200, 200]);
    const created = redemptions.filter((response) => response.status === 201).length;
    expect(created).toBeLessThanOrEqual(3);
    const remaining = await activationsOf(bookId);
    expect(remaining).toBe(created);
    expect(await activationCountOf(qr.id)).toBe(remaining);
  });
});
