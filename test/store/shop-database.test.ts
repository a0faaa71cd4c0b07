// What mysql2 does with a connection whose statement ran past its `timeout`, against a real
// MariaDB, and the rule shop-database.ts builds on it: such a connection is destroyed, so the next
// statement gets a fresh one at once. The first two tests pin the library's behaviour, so an
// upgrade that changes it fails here by name.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import mysql, { type Pool, type RowDataPacket } from "mysql2/promise";
import { AppError } from "../../src/lib/problems";
import { ShopDatabase } from "../../src/store/shop-database";
import { requireStoreServer, storeServerUrl } from "../helpers/wordpress";

const SLEEP_S = 1.5;
const TIMEOUT_MS = 300;

interface IdRow extends RowDataPacket {
  id: number | string;
}

/** The statement's result, or the error it failed with, and when it settled. */
async function timed<T>(pending: Promise<T>): Promise<{ ms: number; value?: T; error?: unknown }> {
  const started = performance.now();
  try {
    const value = await pending;
    return { ms: performance.now() - started, value };
  } catch (error) {
    return { ms: performance.now() - started, error };
  }
}

describe.if(requireStoreServer())("a statement past its timeout, on MariaDB", () => {
  // One connection each: the next statement can only have the connection that timed out, or a new one.
  let pool: Pool;
  let shop: ShopDatabase;

  beforeAll(() => {
    const url = storeServerUrl!;
    pool = mysql.createPool({ uri: url, connectionLimit: 1 });
    shop = new ShopDatabase({ url, reader: "shop", connectionLimit: 1, queueLimit: 10 });
  });
  afterAll(async () => {
    await pool?.end();
    await shop?.close();
  });

  test("mysql2: the timeout rejects, and the connection, released, makes the next statement wait for the rest of the old one with no timer of its own", async () => {
    const connection = await pool.getConnection();
    const sleeping = await timed(
      connection.execute({ sql: `SELECT SLEEP(${SLEEP_S})`, timeout: TIMEOUT_MS }),
    );
    expect(sleeping.ms).toBeLessThan(SLEEP_S * 1000);
    expect(sleeping.error).toMatchObject({ code: "PROTOCOL_SEQUENCE_TIMEOUT" });
    // Not marked fatal: mysql2 neither closes the connection nor takes the statement off it.
    expect((sleeping.error as { fatal?: boolean }).fatal).toBeUndefined();
    connection.release();

    const next = await pool.getConnection();
    expect(next.threadId).toBe(connection.threadId);
    const waited = await timed(next.execute<IdRow[]>({ sql: "SELECT CONNECTION_ID() AS id", timeout: 100 }));
    next.release();
    // Its own 100 ms never ran out: it waited behind the sleep and then got its answer.
    expect(waited.error).toBeUndefined();
    expect(waited.ms).toBeGreaterThan(SLEEP_S * 1000 - TIMEOUT_MS - 200);
    expect(Number(waited.value?.[0][0]?.id)).toBe(next.threadId);
  });

  test("mysql2: pool.execute keeps a timed-out connection out of the pool until the server answers", async () => {
    const sleeping = await timed(pool.execute({ sql: `SELECT SLEEP(${SLEEP_S})`, timeout: TIMEOUT_MS }));
    expect(sleeping.error).toMatchObject({ code: "PROTOCOL_SEQUENCE_TIMEOUT" });
    // The pool's only connection is released when the sleep ends, not when the caller gave up.
    const waited = await timed(pool.execute<IdRow[]>({ sql: "SELECT 1 AS id", timeout: 100 }));
    expect(waited.error).toBeUndefined();
    expect(waited.ms).toBeGreaterThan(SLEEP_S * 1000 - TIMEOUT_MS - 200);
  });

  test("ShopDatabase: the timeout is SERVICE_UNAVAILABLE and its connection destroyed; the next statement runs at once on a new one", async () => {
    const [first] = await shop.rows<IdRow>("SELECT CONNECTION_ID() AS id");
    const sleeping = await timed(
      shop.session((session) => session.rows(`SELECT SLEEP(${SLEEP_S})`, [], TIMEOUT_MS)),
    );
    expect(sleeping.error).toBeInstanceOf(AppError);
    const error = sleeping.error as AppError;
    expect(error.code).toBe("SERVICE_UNAVAILABLE");
    expect(error.headers?.["Retry-After"]).toBe("5");
    expect(error.logFields).toEqual({
      dependency: "shop",
      reason: "cannot be reached",
      storeCode: "PROTOCOL_SEQUENCE_TIMEOUT",
    });

    const next = await timed(shop.rows<IdRow>("SELECT CONNECTION_ID() AS id"));
    expect(next.error).toBeUndefined();
    expect(next.ms).toBeLessThan(SLEEP_S * 1000 - TIMEOUT_MS);
    expect(Number(next.value?.[0]?.id)).not.toBe(Number(first?.id));
  });
});
