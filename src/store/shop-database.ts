// The shop's WordPress/WooCommerce MySQL/MariaDB database: the one client of it, used by its user
// store (wordpress.ts) and its order reader (woocommerce.ts) alike. Here are the pool's options, the
// time limits, what becomes of a connection whose statement failed, the 503 a caller sees when the
// shop cannot serve us, and the DATETIME text both readers write and read.
import mysql, {
  type Pool,
  type PoolConnection,
  type ResultSetHeader,
  type RowDataPacket,
} from "mysql2/promise";
import { AppError } from "../lib/problems";
import { isUnavailable, storeFailureFields } from "./mysql-unavailable";

const CONNECT_TIMEOUT_MS = 5000;
/**
 * Every statement's bound unless it asks for another (a named lock's wait, a health probe's): long
 * enough for the order reader's scan of the legacy posts, which no index serves (312 ms over
 * 100,000 orders, bench/README.md "Shop orders"), short enough that a login finds out about a
 * stalled shop well before a client gives up.
 */
export const QUERY_TIMEOUT_MS = 10_000;
// Waiting for a pooled connection is bounded too: a pool whose connections all hang must not
// queue requests forever.
const ACQUIRE_TIMEOUT_MS = CONNECT_TIMEOUT_MS + 1000;
const CLOSE_WAIT_MS = 1000;

/** Who is reading the shop: the log line's `dependency`, and the words of the caller's 503. */
export type ShopReader = "user store" | "shop";

const UNAVAILABLE_DETAIL: Record<ShopReader, string> = {
  "user store": "The user store is not reachable right now; try again shortly.",
  shop: "The shop's database is not reachable right now.",
};

export interface ShopDatabaseOptions {
  /** mysql://user:password@host:port/database */
  url: string;
  reader: ShopReader;
  connectionLimit: number;
  /** Callers that may wait for a connection (each at most the acquire timeout). */
  queueLimit: number;
}

export type SqlValue = string | number | null;

/**
 * One pooled connection, held for a few statements. The rule for a connection whose statement
 * failed to reach an answer (timed out, or the connection broke): it is destroyed, never released.
 * mysql2 (3.24) answers a statement past its `timeout` with PROTOCOL_SEQUENCE_TIMEOUT but leaves it
 * running: the connection keeps it at the head of its queue until the server answers, and a
 * statement queued behind it waits without a timer of its own (the timer starts when the statement
 * does). Released, such a connection would hand the next caller an unbounded wait behind a statement
 * nobody wants (test/store/shop-database.test.ts shows both).
 */
export class ShopSession {
  private broken = false;

  constructor(private readonly connection: PoolConnection) {}

  async rows<T extends RowDataPacket>(
    sql: string,
    values: SqlValue[] = [],
    timeout = QUERY_TIMEOUT_MS,
  ): Promise<T[]> {
    const [rows] = await this.guard(this.connection.execute<T[]>({ sql, values, timeout }));
    return rows;
  }

  async run(sql: string, values: SqlValue[] = [], timeout = QUERY_TIMEOUT_MS): Promise<ResultSetHeader> {
    const [result] = await this.guard(this.connection.execute<ResultSetHeader>({ sql, values, timeout }));
    return result;
  }

  /** Statements the binary protocol may not prepare (transaction control). */
  async plain(sql: string): Promise<void> {
    await this.guard(this.connection.query({ sql, timeout: QUERY_TIMEOUT_MS }));
  }

  /** The session's state is unknown (a lock or a transaction may be left open): end it. */
  markBroken(): void {
    this.broken = true;
  }

  release(): void {
    if (this.broken) this.connection.destroy();
    else this.connection.release();
  }

  private async guard<T>(pending: Promise<T>): Promise<T> {
    try {
      return await pending;
    } catch (error) {
      // A timeout is one of these (PROTOCOL_SEQUENCE_TIMEOUT), as is every fatal error.
      if (isUnavailable(error)) this.broken = true;
      throw error;
    }
  }
}

export class ShopDatabase {
  private readonly pool: Pool;
  private readonly reader: ShopReader;
  private closed = false;

  constructor(options: ShopDatabaseOptions) {
    if (!options.url.startsWith("mysql://"))
      throw new Error("The store database URL must start with mysql://");
    this.reader = options.reader;
    this.pool = mysql.createPool({
      uri: options.url,
      connectionLimit: options.connectionLimit,
      connectTimeout: CONNECT_TIMEOUT_MS,
      waitForConnections: true,
      queueLimit: options.queueLimit,
      enableKeepAlive: true,
      charset: "utf8mb4_unicode_ci",
      timezone: "Z",
      dateStrings: true,
      // wp_users.ID and the order ids are BIGINT UNSIGNED: keep large ids exact.
      supportBigNumbers: true,
      bigNumberStrings: true,
    });
  }

  /** SERVICE_UNAVAILABLE for this reader; with the driver's error, its reason for the log line. */
  unavailable(error?: unknown): AppError {
    return new AppError("SERVICE_UNAVAILABLE", UNAVAILABLE_DETAIL[this.reader], {
      headers: { "Retry-After": "5" },
      logFields: { dependency: this.reader, ...storeFailureFields(error) },
    });
  }

  /**
   * Every statement against the shop runs in here, on one pooled connection; a failure to reach
   * the shop leaves as SERVICE_UNAVAILABLE. Our own AppErrors pass as they are, and so does any
   * other error (a bug, a misconfigured table, or the service's own database: not ours to rename).
   */
  async session<T>(work: (session: ShopSession) => Promise<T>, acquireMs = ACQUIRE_TIMEOUT_MS): Promise<T> {
    const session = new ShopSession(await this.acquire(acquireMs));
    try {
      return await work(session);
    } catch (error) {
      if (error instanceof AppError || !isUnavailable(error)) throw error;
      throw this.unavailable(error);
    } finally {
      session.release();
    }
  }

  /** One statement's rows, on a session of its own. */
  rows<T extends RowDataPacket>(sql: string, values: SqlValue[] = []): Promise<T[]> {
    return this.session((session) => session.rows<T>(sql, values));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // end() waits for connections still being attempted (up to the connect timeout) and then
    // fails them; at shutdown neither the wait nor the failure is worth having.
    await Promise.race([this.pool.end().catch(() => undefined), Bun.sleep(CLOSE_WAIT_MS)]);
  }

  private async acquire(timeoutMs: number): Promise<PoolConnection> {
    const pending = this.pool.getConnection();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(this.unavailable()), timeoutMs);
    });
    try {
      return await Promise.race([pending, timeout]);
    } catch (error) {
      // A connection that arrives after we gave up goes straight back.
      pending.then((late) => late.release()).catch(() => undefined);
      // Our own time limit's error as it is; the driver's, with the reason for the log line.
      throw error instanceof AppError ? error : this.unavailable(error);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A `DATETIME` as the shop writes it ('Y-m-d H:i:s'; UTC in `user_registered` and the *_gmt columns). */
export function toDateTime(date: Date): string {
  return date.toISOString().slice(0, 19).replace("T", " ");
}

/** The `DATETIME` text read back (dateStrings), as UTC; WordPress's zero date is the epoch. */
export function fromDateTime(text: string | null): Date {
  if (!text || text.startsWith("0000")) return new Date(0);
  return new Date(`${text.replace(" ", "T")}Z`);
}
