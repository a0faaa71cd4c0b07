// STORE_DRIVER=embedded: store users in the service's own database, in tables shaped like
// WordPress's and hashed the same way, so one command runs everything.
import { type AnyColumn, and, asc, desc, eq, gt, inArray, lte, or, type SQL, sql } from "drizzle-orm";
import type { Database } from "#db";
import { DummyHash } from "../auth/dummy-hash";
import { passwordStampOf } from "../auth/password-stamp";
import { hashPassword, schemeOfHash } from "../auth/passwords";
import { isUniqueViolation } from "../db/errors";
import { preparedPer, prepareNamed } from "../db/prepared";
import { type ReadStatement, readWorkerOf } from "../db/read-worker";
import { preparedFindBy } from "../db/rows";
import { withTransaction } from "../db/transaction";
import type { Clock } from "../lib/clock";
import { AppError } from "../lib/problems";
import { findStoreUserLink, insertStoreUserLink } from "../repositories/store-user-links";
import type { NewCustomer, StoreDirectory, StoreUser, UserSearch } from "./directory";
import { rolesFromCapabilities, serializeCapabilities } from "./php-serialize";
import {
  baseLogin,
  customerMeta,
  displayNameOf,
  escapeHtml,
  firstFree,
  loginMax,
  nicenameMax,
  nicenameOf,
  unescapeHtml,
} from "./user-names";

// The embedded tables have no prefix of their own; these keys mirror a `wp_` shop.
const PREFIX = "wp_";
const CAPABILITIES_KEY = `${PREFIX}capabilities`;
const UUID_KEY = "_bookdist_uuid";
const PROFILE_KEYS = ["first_name", "last_name", CAPABILITIES_KEY, UUID_KEY];
// The characters of a salt or hash in bcrypt's, phpass's and argon2's (standard base64) alphabets.
const BASE64_CHARS = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+";
// pg_advisory_xact_lock key for registrations ("bookdist" in ASCII); nothing else here uses advisory locks.
const REGISTER_LOCK_KEY = 0x626f6f6b64697374n;

// GET /authentication/me and every role check read the user of a uuid's link: prepared, so the SQL
// is built and compiled once rather than on every call.
const userById = preparedFindBy("storeUser", "id", "embedded_user_by_id");
const profileMetaOf = preparedPer((db) => {
  const { storeUsermeta } = db.tables;
  const query = db.orm
    .select({ key: storeUsermeta.metaKey, value: storeUsermeta.metaValue })
    .from(storeUsermeta)
    .where(
      and(eq(storeUsermeta.userId, sql.placeholder("id")), inArray(storeUsermeta.metaKey, PROFILE_KEYS)),
    );
  return prepareNamed(query, "embedded_profile_meta");
});

export class EmbeddedStore implements StoreDirectory {
  readonly kind = "embedded" as const;
  /** What a failed check costs: the dearest scheme the store's users have (dummy-hash.ts). */
  private readonly dummyHash: DummyHash;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    /** bcrypt cost of the hashes registration writes (config.passwordHashCost). */
    private readonly passwordHashCost: number,
  ) {
    this.dummyHash = new DummyHash(
      () => hashSchemesOf(this.db),
      () => this.clock.now().getTime(),
    );
  }

  async authenticate(
    loginOrEmail: string,
    password: string,
    beforeCheck?: (storeUserId: string | null) => Promise<void>,
  ): Promise<StoreUser | null> {
    const row = await this.findUserRow(loginOrEmail);
    await beforeCheck?.(row ? String(row.id) : null);
    const verified = await this.dummyHash.verify(password, row?.userPass);
    if (!row || !verified) return null;
    return this.toStoreUser(row.id);
  }

  async register(customer: NewCustomer): Promise<StoreUser> {
    // Hash before the transaction: on SQLite a transaction must do database work only.
    const passwordHash = await hashPassword(customer.password, this.passwordHashCost);
    const uuid = crypto.randomUUID();
    const id = await withTransaction(this.db, (tx) =>
      this.insertCustomer(tx, customer, passwordHash, uuid),
    ).catch((error) => {
      // Two registrations of one address raced past the check: the unique index decided.
      if (isUniqueViolation(error))
        throw new AppError("EMAIL_ALREADY_EXISTS", "An account with this e-mail already exists.");
      throw error;
    });
    return (await this.toStoreUser(id))!;
  }

  private async insertCustomer(
    tx: Database,
    customer: NewCustomer,
    passwordHash: string,
    uuid: string,
  ): Promise<number> {
    {
      const { storeUser, storeUsermeta } = tx.tables;
      // The unique indexes guard e-mail and login, but a login taken by a concurrent registration
      // must become "john-2", not EMAIL_ALREADY_EXISTS for a free address; nicename has no index
      // at all. So the check-then-insert runs one at a time: SQLite's transactions already queue,
      // on Postgres a transaction-scoped advisory lock does it (released at commit or rollback).
      if (tx.dialect === "postgres") {
        // Typed per "#db"'s dialect, which may be SQLite's (no execute) while this runs on Postgres.
        const pg = tx.orm as unknown as { execute(query: ReturnType<typeof sql>): Promise<unknown> };
        await pg.execute(sql`SELECT pg_advisory_xact_lock(${REGISTER_LOCK_KEY})`);
      }
      const email = customer.email.trim();
      const taken = await tx.orm
        .select({ id: storeUser.id })
        .from(storeUser)
        .where(
          or(
            eq(sql`lower(${storeUser.userEmail})`, email.toLowerCase()),
            eq(sql`lower(${storeUser.userLogin})`, email.toLowerCase()),
          ),
        )
        .limit(1);
      if (taken.length > 0)
        throw new AppError("EMAIL_ALREADY_EXISTS", "An account with this e-mail already exists.");

      const base = baseLogin(email, customer.firstName, customer.lastName);
      const login = firstFree(base, await this.namesLike(tx, "login", base), loginMax);
      const nicename = firstFree(
        nicenameOf(login),
        await this.namesLike(tx, "nicename", nicenameOf(login)),
        nicenameMax,
      );
      const now = this.clock.now();
      const [inserted] = await tx.orm
        .insert(storeUser)
        .values({
          userLogin: login,
          userPass: passwordHash,
          userNicename: nicename,
          userEmail: email,
          userUrl: "",
          userRegistered: now,
          userActivationKey: "",
          userStatus: 0,
          displayName: displayNameOf(login, customer.firstName, customer.lastName),
        })
        .returning({ id: storeUser.id });
      const userId = inserted!.id;
      const meta = customerMeta({
        login,
        firstName: customer.firstName,
        lastName: customer.lastName,
        prefix: PREFIX,
        capabilities: serializeCapabilities(["customer"]),
        uuidKey: UUID_KEY,
        uuid,
      });
      await tx.orm
        .insert(storeUsermeta)
        .values(meta.map(([metaKey, metaValue]) => ({ userId, metaKey, metaValue })));
      await insertStoreUserLink(tx, { uuid, storeUserId: String(userId), createdAt: now });
      return userId;
    }
  }

  async findByUuid(uuid: string): Promise<StoreUser | null> {
    const link = await findStoreUserLink(this.db, uuid);
    return link ? this.toStoreUser(Number(link.storeUserId)) : null;
  }

  /** Prefix of e-mail, login, first or last name, each a range on its own index (matchBranches). */
  async searchUsers(search: UserSearch): Promise<StoreUser[]> {
    const ids =
      search.within === undefined ? await this.matchingIds(search) : await this.firstMatchingIds(search);
    const users: StoreUser[] = [];
    for (const id of ids) {
      const user = await this.toStoreUser(id);
      if (user) users.push(user);
    }
    return users;
  }

  /** The window's ids, every match in the search's order. */
  private async matchingIds(search: UserSearch): Promise<number[]> {
    const { storeUser } = this.db.tables;
    const terms: SQL[] = [];
    for (const { field, direction } of search.sort) {
      const key = lowerOf(this.db, field === "email" ? storeUser.userEmail : storeUser.userLogin);
      terms.push(direction === "desc" ? desc(key) : asc(key));
    }
    const query = this.db.orm
      .select({ id: storeUser.id })
      .from(storeUser)
      .where(this.matching(search.prefix))
      .orderBy(...terms, asc(storeUser.id))
      .limit(search.limit)
      .offset(search.offset);
    return (await this.firstColumnOffLoop(query, "id")).map(Number);
  }

  /**
   * The first column of a read that visits every match (the exact count, the page of a wide
   * prefix sorted by the index of one range while matched by four): on SQLite it runs on the
   * handle's read worker (db/read-worker.ts), as it would otherwise hold the event loop for
   * ~100 ms at a million users; on Postgres, and on a handle without one, as any other read.
   */
  private async firstColumnOffLoop<K extends string>(
    query: { toSQL(): ReadStatement } & PromiseLike<Record<K, unknown>[]>,
    column: K,
  ): Promise<unknown[]> {
    const worker = readWorkerOf(this.db);
    if (worker) return (await worker.values(query.toSQL())).map((row) => row[0]);
    return (await query).map((row) => row[column]);
  }

  /**
   * The window's ids among the first `within` matches as the indexes give them, with their keys
   * (the database's lower()), sorted here: at most `within` rows are read and sorted, whatever the
   * plan. In SQL (ORDER BY over an IN list of those ids) Postgres may walk the whole e-mail index
   * in order to find them. The keys compare as UTF-8 bytes: the order of SQLite's BINARY and of
   * Postgres's "C" collation.
   */
  private async firstMatchingIds(search: UserSearch): Promise<number[]> {
    const { storeUser } = this.db.tables;
    const within = search.within ?? 0;
    const ids = (await this.firstMatches(search.prefix, within)).slice(0, within);
    if (ids.length === 0) return [];
    const kept = await this.db.orm
      .select({
        id: storeUser.id,
        email: sql<string>`${lowerOf(this.db, storeUser.userEmail)}`,
        login: sql<string>`${lowerOf(this.db, storeUser.userLogin)}`,
      })
      .from(storeUser)
      .where(inArray(storeUser.id, ids));
    const bytes = (text: string) => Buffer.from(text, "utf8");
    const keyed = kept.map((row) => ({
      id: Number(row.id),
      email: bytes(row.email),
      login: bytes(row.login),
    }));
    keyed.sort((a, b) => {
      for (const { field, direction } of search.sort) {
        const order = Buffer.compare(a[field], b[field]);
        if (order !== 0) return direction === "desc" ? -order : order;
      }
      return a.id - b.id;
    });
    return keyed.slice(search.offset, search.offset + search.limit).map((row) => row.id);
  }

  async countUsers(prefix: string, upTo?: number): Promise<number> {
    if (upTo !== undefined) return Math.min((await this.firstMatches(prefix, upTo)).length, upTo + 1);
    // The distinct ids of the four ranges, each read on its index; every name row is of a user
    // (store_usermeta's foreign key), so this is the number of users matching.
    const query = this.db.orm
      .select({ n: sql<number>`count(*)` })
      .from(sql`(${this.unionOfBranches(prefix, sql` UNION `)}) AS matches`);
    const [n] = await this.firstColumnOffLoop(query, "n");
    return Number(n ?? 0);
  }

  /**
   * The ids of up to `bound` + 1 distinct users matching the prefix (all of them when there are
   * no more than `bound`): each way of matching is read on its own index and stops after
   * `bound` + 1 rows, so a rare prefix reads its few matches and a wide one at most 4 × (`bound`
   * + 1) entries. (One statement ORing the four made Postgres scan every user: 1.4 s at a million
   * for 11 matches.) A branch that stops yields `bound` + 1 distinct users, as a user has one
   * e-mail, one login and, as the embedded store writes them, one row of each name key; a name
   * key written twice for one user (by hand) could make it yield fewer, and then the distinct
   * ids of the four whole ranges decide.
   */
  private async firstMatches(typed: string, bound: number): Promise<number[]> {
    const found = new Set<number>();
    let stopped = false;
    for (const branch of this.matchBranches(typed)) {
      const rows = await branch.limit(bound + 1);
      for (const row of rows) found.add(Number(row.id));
      if (rows.length > bound) stopped = true;
    }
    if (!stopped || found.size > bound) return [...found];
    const rows = await this.db.orm
      .select({ id: sql<number>`id` })
      .from(sql`(${this.unionOfBranches(typed, sql` UNION `)}) AS matches`)
      .limit(bound + 1);
    return rows.map((row) => Number(row.id));
  }

  /**
   * Each way a user matches a prefix of e-mail, login, first or last name, as a range of one
   * index (migration user-search): lower(user_email), lower(user_login), and (meta_key,
   * lower(meta_value)) for each name key, matched as stored, HTML-escaped like WordPress's.
   */
  private matchBranches(typed: string) {
    const { storeUser, storeUsermeta } = this.db.tables;
    const prefix = lowerAs(this.db, typed);
    const byColumn = (column: AnyColumn) =>
      this.db.orm
        .select({ id: storeUser.id })
        .from(storeUser)
        .where(startsWith(this.db, column, prefix))
        .$dynamic();
    const byName = (key: "first_name" | "last_name") =>
      this.db.orm
        .select({ id: storeUsermeta.userId })
        .from(storeUsermeta)
        .where(
          and(
            // Literal, as in the partial index's WHERE: SQLite uses that index only for the same term.
            sql`${storeUsermeta.metaKey} IN ('first_name', 'last_name')`,
            eq(storeUsermeta.metaKey, key),
            startsWith(this.db, storeUsermeta.metaValue, escapeHtml(prefix)),
          ),
        )
        .$dynamic();
    return [
      byColumn(storeUser.userEmail),
      byColumn(storeUser.userLogin),
      byName("first_name"),
      byName("last_name"),
    ];
  }

  /**
   * The users matching a prefix, as one condition: their id in the union of the four ranges, so
   * each range is read on its index (an OR of them is a scan of every user on Postgres).
   */
  private matching(typed: string): SQL {
    return sql`${this.db.tables.storeUser.id} IN (${this.unionOfBranches(typed, sql` UNION ALL `)})`;
  }

  private unionOfBranches(typed: string, union: SQL): SQL {
    const branches = this.matchBranches(typed).map((branch, i) => {
      // Each range as a subquery of its own: SQLite allows no parenthesised SELECT in a UNION.
      return sql`SELECT * FROM (${branch}) AS ${sql.raw(`match_${i}`)}`;
    });
    return sql.join(branches, union);
  }

  async findUser(loginOrEmail: string): Promise<StoreUser | null> {
    // The same look-up as a login's, so an operator's `admin grant x` names whom `x` logs in as.
    const row = await this.findUserRow(loginOrEmail);
    return row ? this.toStoreUser(row.id) : null;
  }

  private async findUserRow(loginOrEmail: string) {
    const { storeUser } = this.db.tables;
    const needle = loginOrEmail.trim().toLowerCase();
    const emailMatch = eq(sql`lower(${storeUser.userEmail})`, needle);
    const loginMatch = eq(sql`lower(${storeUser.userLogin})`, needle);
    // An e-mail-like name means that user's e-mail, even if another user's login reads the same;
    // any other name is a login first.
    const preferred = needle.includes("@") ? emailMatch : loginMatch;
    const [row] = await this.db.orm
      .select()
      .from(storeUser)
      .where(or(emailMatch, loginMatch))
      .orderBy(sql`CASE WHEN ${preferred} THEN 0 ELSE 1 END`, storeUser.id)
      .limit(1);
    return row;
  }

  async ping(): Promise<void> {
    await this.db.orm.select({ id: this.db.tables.storeUser.id }).from(this.db.tables.storeUser).limit(1);
  }

  async close(): Promise<void> {}

  /** Names starting with `base`; for logins, e-mails too: a login never equals anyone's e-mail. */
  private async namesLike(tx: Database, column: "login" | "nicename", base: string): Promise<Set<string>> {
    const { storeUser } = tx.tables;
    const targets =
      column === "login" ? [storeUser.userLogin, storeUser.userEmail] : [storeUser.userNicename];
    const pattern = `${escapeLike(base.toLowerCase())}%`;
    const names = new Set<string>();
    for (const target of targets) {
      const rows = await tx.orm
        .select({ name: target })
        .from(storeUser)
        .where(sql`lower(${target}) LIKE ${pattern} ESCAPE '\\'`);
      for (const row of rows) names.add(row.name.toLowerCase());
    }
    return names;
  }

  private async toStoreUser(id: number): Promise<StoreUser | null> {
    const row = await userById(this.db, id);
    if (!row) return null;
    const metaRows = await profileMetaOf(this.db).execute({ id });
    const meta = new Map(metaRows.map((m) => [m.key, m.value]));
    const uuid = meta.get(UUID_KEY) ?? (await this.giveUuid(id));
    return {
      storeUserId: String(row.id),
      uuid,
      login: row.userLogin,
      email: row.userEmail,
      displayName: row.displayName,
      firstName: unescapeHtml(meta.get("first_name") ?? ""),
      lastName: unescapeHtml(meta.get("last_name") ?? ""),
      storeRoles: rolesFromCapabilities(meta.get(CAPABILITIES_KEY) ?? ""),
      passwordStamp: passwordStampOf(row.userPass),
    };
  }

  /** A user created outside the API (e.g. seeded) gets its uuid on first sight, once. */
  private async giveUuid(userId: number): Promise<string> {
    return withTransaction(this.db, async (tx) => {
      const { storeUsermeta } = tx.tables;
      const [existing] = await tx.orm
        .select({ value: storeUsermeta.metaValue })
        .from(storeUsermeta)
        .where(and(eq(storeUsermeta.userId, userId), eq(storeUsermeta.metaKey, UUID_KEY)))
        .limit(1);
      if (existing) return existing.value;
      const uuid = crypto.randomUUID();
      await tx.orm.insert(storeUsermeta).values({ userId, metaKey: UUID_KEY, metaValue: uuid });
      await insertStoreUserLink(tx, { uuid, storeUserId: String(userId), createdAt: this.clock.now() });
      return uuid;
    });
  }
}

/** Users grouped per event-loop turn while the schemes are sampled (about 7 ms per 20,000 on SQLite). */
const SCHEME_SAMPLE_CHUNK = 20_000;

/**
 * The hash schemes the store's users have (passwords.ts schemeOfHash names them from one hash of
 * each group), grouped in SQL so a large store is not read row by row: by a prefix at least as
 * long as the scheme; an argon2 hash instead loses its hash and salt (base64, no "$") from the right.
 * In id ranges, one per event-loop turn: on SQLite the grouping runs on the event loop, and a
 * million users at once held it for 340 ms.
 */
export async function hashSchemesOf(db: Database, chunk = SCHEME_SAMPLE_CHUNK): Promise<string[]> {
  const { storeUser } = db.tables;
  const pass = storeUser.userPass;
  const scheme = sql`CASE
    WHEN length(${pass}) <= 32 THEN 'md5'
    WHEN substr(${pass}, 1, 3) = '$P$' THEN substr(${pass}, 1, 4)
    WHEN substr(${pass}, 1, 4) = '$wp$' THEN substr(${pass}, 1, 10)
    WHEN substr(${pass}, 1, 7) = '$argon2'
      THEN rtrim(rtrim(rtrim(rtrim(${pass}, ${BASE64_CHARS}), '$'), ${BASE64_CHARS}), '$')
    ELSE substr(${pass}, 1, 7)
  END`;
  const [last] = await db.orm.select({ id: sql<number | null>`max(${storeUser.id})` }).from(storeUser);
  const lastId = Number(last?.id ?? 0);
  const schemes = new Set<string>();
  for (let from = 0; from < lastId; from += chunk) {
    if (from > 0) await new Promise((resolve) => setImmediate(resolve));
    const rows = await db.orm
      .select({ hash: sql<string>`min(${pass})` })
      .from(storeUser)
      .where(and(gt(storeUser.id, from), lte(storeUser.id, from + chunk)))
      .groupBy(scheme);
    for (const row of rows) schemes.add(schemeOfHash(row.hash));
  }
  return [...schemes];
}

/**
 * lower(column) in code-point order: SQLite's BINARY collation is that already, Postgres's
 * database collation may not be, so there the expression (and its index) say COLLATE "C".
 */
function lowerOf(db: Database, column: AnyColumn): SQL {
  return db.dialect === "postgres" ? sql`lower(${column}) COLLATE "C"` : sql`lower(${column})`;
}

/**
 * `text` lower-cased as the database's lower() does it: SQLite's folds ASCII letters only (so "Å"
 * stays "Å" and matches as typed), Postgres's every letter of the database's locale.
 */
function lowerAs(db: Database, text: string): string {
  return db.dialect === "postgres" ? text.toLowerCase() : text.replace(/[A-Z]+/g, (run) => run.toLowerCase());
}

/**
 * lower(column) starts with `prefix` (lower case): the range [prefix, prefix with its last
 * character's successor), which is exactly the strings with that prefix in code-point order and
 * which both databases read from an index on the same expression (LIKE would not use it).
 */
function startsWith(db: Database, column: AnyColumn, prefix: string): SQL {
  const key = lowerOf(db, column);
  return sql`(${key} >= ${prefix} AND ${key} < ${successorOf(prefix)})`;
}

function successorOf(prefix: string): string {
  const points = Array.from(prefix);
  const last = points.pop()!.codePointAt(0)!;
  // Skip the surrogate range: no string holds those code points on their own.
  const next = last === 0xd7ff ? 0xe000 : last + 1;
  return points.join("") + String.fromCodePoint(Math.min(next, 0x10ffff));
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}
