// STORE_DRIVER=wordpress: the shop's own users, read and written in its WordPress/WooCommerce
// MySQL/MariaDB database (README, Users from a WordPress/WooCommerce shop). WordPress guards
// nothing with unique indexes, so every check-then-insert here runs under a named lock (GET_LOCK)
// that all bookdist instances share.
import { createHash } from "node:crypto";
import type { RowDataPacket } from "mysql2/promise";
import type { Database } from "#db";
import { DummyHash } from "../auth/dummy-hash";
import { passwordStampOf } from "../auth/password-stamp";
import { hashPassword } from "../auth/passwords";
import type { Clock } from "../lib/clock";
import { AppError } from "../lib/problems";
import { sqlIdentifier } from "../lib/sql-identifier";
import { findStoreUserLink, putStoreUserLink } from "../repositories/store-user-links";
import type { NewCustomer, StoreDirectory, StoreUser, UserSearch } from "./directory";
import { rolesFromCapabilities, serializeCapabilities } from "./php-serialize";
import { QUERY_TIMEOUT_MS, ShopDatabase, type ShopSession, toDateTime } from "./shop-database";
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

export interface WordPressStoreOptions {
  /** mysql://user:password@host:port/database */
  url: string;
  tablePrefix: string;
  uuidMetaKey: string;
  /** The service's own database, which holds store_user_link (uuid → wp_users.ID). */
  db: Database;
  clock: Clock;
  /** bcrypt cost of the hashes registration writes (config.passwordHashCost). */
  passwordHashCost: number;
}

const PING_TIMEOUT_MS = 2000;
const UUID_LOCK_SECONDS = 5;
const REGISTER_LOCK_SECONDS = 10;
const DISPLAY_NAME_MAX = 250;

interface UserRow extends RowDataPacket {
  ID: number | string;
  user_login: string;
  user_pass: string;
  user_email: string;
  display_name: string;
}

interface MetaRow extends RowDataPacket {
  user_id: number | string;
  meta_key: string;
  meta_value: string | null;
}

export class WordPressStore implements StoreDirectory {
  readonly kind = "wordpress" as const;
  private readonly shop: ShopDatabase;
  private readonly users: string;
  private readonly usermeta: string;
  private readonly capabilitiesKey: string;
  private readonly prefix: string;
  private readonly uuidMetaKey: string;
  private readonly database: string;
  private readonly db: Database;
  private readonly clock: Clock;
  private readonly passwordHashCost: number;
  /** What a failed check costs: the dearest scheme the shop's users have (dummy-hash.ts). */
  private readonly dummyHash: DummyHash;

  constructor(options: WordPressStoreOptions) {
    // The prefix is the only text ever put into SQL; config.ts checks it, and so does this.
    this.prefix = sqlIdentifier(options.tablePrefix, "The store table prefix");
    this.users = `\`${this.prefix}users\``;
    this.usermeta = `\`${this.prefix}usermeta\``;
    this.capabilitiesKey = `${this.prefix}capabilities`;
    this.uuidMetaKey = sqlIdentifier(options.uuidMetaKey, "The store uuid meta key");
    this.shop = new ShopDatabase({
      url: options.url,
      reader: "user store",
      connectionLimit: 10,
      queueLimit: 100,
    });
    this.database = decodeURIComponent(new URL(options.url).pathname.replace(/^\//, ""));
    this.db = options.db;
    this.clock = options.clock;
    this.passwordHashCost = options.passwordHashCost;
    this.dummyHash = new DummyHash(
      () => this.hashSchemes(),
      () => this.clock.now().getTime(),
    );
  }

  async authenticate(
    loginOrEmail: string,
    password: string,
    beforeCheck?: (storeUserId: string | null) => Promise<void>,
  ): Promise<StoreUser | null> {
    const needle = loginOrEmail.trim();
    // The shop's schemes are sampled beside the look-up (once, then in the background every few
    // minutes); the check below waits for them.
    this.dummyHash.current().catch(() => undefined);
    const row =
      needle === "" ? undefined : await this.shop.session((session) => this.findUserRow(session, needle));
    await beforeCheck?.(row ? String(row.ID) : null);
    // No connection is held while hashing: bcrypt takes longer than the queries.
    const verified = await this.dummyHash.verify(password, row?.user_pass);
    if (!row || !verified) return null;
    const user = await this.shop.session((session) => this.completeUser(session, row));
    await this.recordLink(user.uuid, user.storeUserId);
    return user;
  }

  async register(customer: NewCustomer): Promise<StoreUser> {
    // Hashing first keeps the lock (and the transaction) as short as the SQL itself.
    const passwordHash = await hashPassword(customer.password, this.passwordHashCost);
    const email = customer.email.trim();
    // One registration of the shop at a time: both the e-mail check and the choice of a free login
    // and nicename read what a concurrent registration is about to insert (john@a.com and
    // john@b.com would both find "john" free). Registrations are rare and throttled, and the hash
    // is made before the lock, so queueing them costs next to nothing.
    const lock = this.lockName("bookdist-register-", "");
    const user = await this.shop.session((session) =>
      this.underLock(session, lock, REGISTER_LOCK_SECONDS, () =>
        this.inTransaction(session, () => this.insertCustomer(session, customer, email, passwordHash)),
      ),
    );
    await this.recordLink(user.uuid, user.storeUserId);
    return user;
  }

  async findByUuid(uuid: string): Promise<StoreUser | null> {
    const link = await findStoreUserLink(this.db, uuid);
    if (link) {
      const linked = await this.shop.session((session) => this.loadUser(session, link.storeUserId));
      if (linked?.uuid === uuid) return linked;
    }
    // No link yet (or a stale one): usermeta is the shop-side record, scan it.
    const found = await this.shop.session(async (session) => {
      const userId = await this.userIdWithUuid(session, uuid);
      return userId === null ? null : this.loadUser(session, userId);
    });
    if (found?.uuid !== uuid) return null;
    await this.recordLink(found.uuid, found.storeUserId);
    return found;
  }

  async findUser(loginOrEmail: string): Promise<StoreUser | null> {
    const needle = loginOrEmail.trim();
    if (needle === "") return null;
    // The same look-up as a login's, so an operator's `admin grant x` names whom `x` logs in as.
    const user = await this.shop.session(async (session) => {
      const row = await this.findUserRow(session, needle);
      return row ? this.completeUser(session, row) : null;
    });
    if (user) await this.recordLink(user.uuid, user.storeUserId);
    return user;
  }

  /**
   * Prefix of user_login, user_email or user_nicename: wp_users' indexed columns, each a LIKE
   * range on its index under the table's case-insensitive collation. First and last names live in
   * wp_usermeta, whose meta_value has no index (a prefix of them would read every user's name
   * rows), so they are not searched here (README "Finding users and activations"); the embedded store searches them.
   */
  async searchUsers(search: UserSearch): Promise<StoreUser[]> {
    const order = search.sort.map(
      ({ field, direction }) =>
        `${field === "email" ? "user_email" : "user_login"} ${direction === "desc" ? "DESC" : "ASC"}`,
    );
    // Inlined integers (the route bounds them): the binary protocol refuses a bound LIMIT on MariaDB.
    const limit = Math.trunc(search.limit);
    const offset = Math.trunc(search.offset);
    const users = await this.shop.session(async (session) => {
      // Bounded (`within`): the first matches by key, sorted among themselves (a derived table:
      // MariaDB refuses a LIMIT inside IN).
      const from =
        search.within === undefined
          ? `${this.users} WHERE ${SEARCH_WHERE}`
          : `${this.users} JOIN (SELECT ID AS kept_id FROM ${this.users} WHERE ${SEARCH_WHERE}
               LIMIT ${Math.trunc(search.within)}) AS kept ON kept.kept_id = ID`;
      const rows = await session.rows<UserRow>(
        `SELECT ID, user_login, user_pass, user_email, display_name FROM ${from}
         ORDER BY ${[...order, "ID"].join(", ")} LIMIT ${limit} OFFSET ${offset}`,
        searchValues(search.prefix),
      );
      const found: StoreUser[] = [];
      for (const row of rows) found.push(await this.completeUser(session, row));
      return found;
    });
    for (const user of users) await this.recordLink(user.uuid, user.storeUserId);
    return users;
  }

  async countUsers(prefix: string, upTo?: number): Promise<number> {
    const matches =
      upTo === undefined
        ? `${this.users} WHERE ${SEARCH_WHERE}`
        : `(SELECT ID FROM ${this.users} WHERE ${SEARCH_WHERE} LIMIT ${Math.trunc(upTo) + 1}) AS kept`;
    const [row] = await this.shop.session((session) =>
      session.rows<RowDataPacket>(`SELECT COUNT(*) AS n FROM ${matches}`, searchValues(prefix)),
    );
    return Number(row?.n ?? 0);
  }

  /** The user with this wp_users.ID (a shop order's customer_id), with a uuid (given now if missing). */
  async findByStoreUserId(storeUserId: string): Promise<StoreUser | null> {
    const user = await this.shop.session((session) => this.loadUser(session, storeUserId));
    if (user) await this.recordLink(user.uuid, user.storeUserId);
    return user;
  }

  async ping(): Promise<void> {
    await this.shop.session(async (session) => {
      // Touching the users table also proves the prefix and the SELECT grant, not only the network.
      await session.rows(`SELECT 1 AS ok FROM ${this.users} LIMIT 1`, [], PING_TIMEOUT_MS);
    }, PING_TIMEOUT_MS);
  }

  close(): Promise<void> {
    return this.shop.close();
  }

  /**
   * Named locks are server-wide, so the name carries the database and prefix: two shops on one
   * server never wait for each other. sha1 keeps it within MySQL's 64 characters.
   */
  private lockName(kind: string, key: string): string {
    const digest = createHash("sha1").update(`${this.database}\0${this.prefix}\0${key}`).digest("hex");
    return `${kind}${digest}`;
  }

  private async underLock<T>(
    session: ShopSession,
    name: string,
    seconds: number,
    work: () => Promise<T>,
  ): Promise<T> {
    const [row] = await session.rows<RowDataPacket>(
      "SELECT GET_LOCK(?, ?) AS acquired",
      [name, seconds],
      seconds * 1000 + QUERY_TIMEOUT_MS,
    );
    // 0: another session held it for the whole wait; NULL: the server failed to take it.
    if (Number(row?.acquired) !== 1) throw this.shop.unavailable();
    try {
      return await work();
    } finally {
      await session.rows("SELECT RELEASE_LOCK(?) AS released", [name]).catch(() => {
        // Ending the session is the other way to free the lock.
        session.markBroken();
      });
    }
  }

  private async inTransaction<T>(session: ShopSession, work: () => Promise<T>): Promise<T> {
    await session.plain("START TRANSACTION");
    try {
      const result = await work();
      await session.plain("COMMIT");
      return result;
    } catch (error) {
      await session.plain("ROLLBACK").catch(() => session.markBroken());
      throw error;
    }
  }

  private async findUserRow(session: ShopSession, needle: string): Promise<UserRow | undefined> {
    // The _ci collation makes both comparisons case-insensitive. A name that looks like an e-mail
    // means that user's e-mail first: a login reading like someone's e-mail (old data, or made in
    // wp-admin) must not shadow that user. Any other name is a login first.
    const preferred = needle.includes("@") ? "user_email" : "user_login";
    const [row] = await session.rows<UserRow>(
      `SELECT ID, user_login, user_pass, user_email, display_name FROM ${this.users}
       WHERE user_login = ? OR user_email = ? ORDER BY ${preferred} = ? DESC, ID LIMIT 1`,
      [needle, needle, needle],
    );
    return row;
  }

  /**
   * The hash schemes the shop's users have (passwords.ts schemeOfHash, computed here in SQL so a
   * large shop is not read row by row).
   */
  private async hashSchemes(): Promise<string[]> {
    const rows = await this.shop.session((session) =>
      session.rows<RowDataPacket>(
        // Compared as bytes: the table's _ci collation would take $P$B and $P$b for one scheme.
        `SELECT DISTINCT CAST(CASE
           WHEN LENGTH(user_pass) <= 32 THEN 'md5'
           WHEN user_pass LIKE BINARY '$P$%' THEN LEFT(user_pass, 4)
           WHEN user_pass LIKE BINARY '$wp$%' OR user_pass LIKE BINARY '$argon2%'
             THEN SUBSTRING_INDEX(user_pass, '$', 4)
           ELSE SUBSTRING_INDEX(user_pass, '$', 3)
         END AS BINARY) AS scheme
         FROM ${this.users}`,
      ),
    );
    return rows.map((row) => Buffer.from(row.scheme as Uint8Array).toString());
  }

  private async loadUser(session: ShopSession, storeUserId: string): Promise<StoreUser | null> {
    const [row] = await session.rows<UserRow>(
      `SELECT ID, user_login, user_pass, user_email, display_name FROM ${this.users} WHERE ID = ?`,
      [storeUserId],
    );
    return row ? this.completeUser(session, row) : null;
  }

  /** The user's names, roles and uuid from usermeta; a user without a uuid gets one now. */
  private async completeUser(session: ShopSession, row: UserRow): Promise<StoreUser> {
    const userId = String(row.ID);
    const meta = await this.metaOf(session, userId, [
      "first_name",
      "last_name",
      this.capabilitiesKey,
      this.uuidMetaKey,
    ]);
    const uuid = meta.get(this.uuidMetaKey) || (await this.giveUuid(session, userId));
    return {
      storeUserId: userId,
      uuid,
      login: row.user_login,
      email: row.user_email,
      displayName: unescapeHtml(row.display_name),
      firstName: unescapeHtml(meta.get("first_name") ?? ""),
      lastName: unescapeHtml(meta.get("last_name") ?? ""),
      storeRoles: rolesFromCapabilities(meta.get(this.capabilitiesKey) ?? ""),
      passwordStamp: passwordStampOf(row.user_pass),
    };
  }

  /**
   * First row per key, as get_user_meta(…, true) reads it (but an empty row does not hide a later
   * value, so a blank uuid row can't make every login add another); keys compared exactly, as PHP does.
   */
  private async metaOf(session: ShopSession, userId: string, keys: string[]): Promise<Map<string, string>> {
    const rows = await session.rows<MetaRow>(
      `SELECT meta_key, meta_value FROM ${this.usermeta}
       WHERE user_id = ? AND meta_key IN (${keys.map(() => "?").join(", ")}) ORDER BY umeta_id`,
      [userId, ...keys],
    );
    const meta = new Map<string, string>();
    for (const row of rows) {
      if (keys.includes(row.meta_key) && !meta.get(row.meta_key))
        meta.set(row.meta_key, row.meta_value ?? "");
    }
    return meta;
  }

  /** A customer who existed before bookdist gets a uuid at first sight, exactly once. */
  private giveUuid(session: ShopSession, userId: string): Promise<string> {
    return this.underLock(session, this.lockName("bookdist-uuid-", userId), UUID_LOCK_SECONDS, async () => {
      // Re-read under the lock: a concurrent first login may have just written it.
      const existing = (await this.metaOf(session, userId, [this.uuidMetaKey])).get(this.uuidMetaKey);
      if (existing) return existing;
      const uuid = crypto.randomUUID();
      await session.run(`INSERT INTO ${this.usermeta} (user_id, meta_key, meta_value) VALUES (?, ?, ?)`, [
        userId,
        this.uuidMetaKey,
        uuid,
      ]);
      return uuid;
    });
  }

  private async userIdWithUuid(session: ShopSession, uuid: string): Promise<string | null> {
    // No index covers meta_value: this scans the key's rows, hence store_user_link in front of it.
    const rows = await session.rows<MetaRow>(
      `SELECT user_id, meta_key, meta_value FROM ${this.usermeta}
       WHERE meta_key = ? AND meta_value = ? ORDER BY umeta_id LIMIT 10`,
      [this.uuidMetaKey, uuid],
    );
    const match = rows.find((row) => row.meta_key === this.uuidMetaKey && row.meta_value === uuid);
    return match ? String(match.user_id) : null;
  }

  private async insertCustomer(
    session: ShopSession,
    customer: NewCustomer,
    email: string,
    passwordHash: string,
  ): Promise<StoreUser> {
    const taken = await session.rows<RowDataPacket>(
      `SELECT ID FROM ${this.users} WHERE user_email = ? OR user_login = ? LIMIT 1`,
      [email, email],
    );
    if (taken.length > 0) {
      throw new AppError("EMAIL_ALREADY_EXISTS", "An account with this e-mail already exists.");
    }
    const { firstName, lastName } = customer;
    const login = await this.freeName(session, "user_login", baseLogin(email, firstName, lastName), loginMax);
    const nicename = await this.freeName(session, "user_nicename", nicenameOf(login), nicenameMax);
    const storedDisplayName = fitDisplayName(displayNameOf(login, firstName, lastName), login);
    const inserted = await session.run(
      `INSERT INTO ${this.users} (user_login, user_pass, user_nicename, user_email, user_url, user_registered,
         user_activation_key, user_status, display_name)
       VALUES (?, ?, ?, ?, '', ?, '', 0, ?)`,
      [login, passwordHash, nicename, email, toDateTime(this.clock.now()), storedDisplayName],
    );
    const userId = String(inserted.insertId);
    const uuid = crypto.randomUUID();
    const meta = customerMeta({
      login,
      firstName,
      lastName,
      prefix: this.prefix,
      capabilities: serializeCapabilities(["customer"]),
      uuidKey: this.uuidMetaKey,
      uuid,
    });
    // One multi-row INSERT: its auto-increment ids rise in the rows' order, so umeta_id keeps WordPress's.
    await session.run(
      `INSERT INTO ${this.usermeta} (user_id, meta_key, meta_value) VALUES ${meta.map(() => "(?, ?, ?)").join(", ")}`,
      meta.flatMap(([key, value]) => [userId, key, value]),
    );
    return {
      storeUserId: userId,
      uuid,
      login,
      email,
      displayName: unescapeHtml(storedDisplayName),
      firstName,
      lastName,
      storeRoles: ["customer"],
      passwordStamp: passwordStampOf(passwordHash),
    };
  }

  /**
   * `base`, or `base-2`, `base-3`… not yet used in `column`. The LIKE scan finds the usual
   * candidates in one query; the exact check then lets the column's collation (case- and
   * accent-insensitive) have the last word, and covers suffixes that had to shorten the base.
   */
  private async freeName(
    session: ShopSession,
    column: "user_login" | "user_nicename",
    base: string,
    max: number,
  ): Promise<string> {
    const rows = await session.rows<RowDataPacket>(
      `SELECT ${column} AS name FROM ${this.users} WHERE ${column} LIKE ? ESCAPE '!'`,
      [`${escapeLike(base)}%`],
    );
    const taken = new Set(rows.map((row) => String(row.name).toLowerCase()));
    // A login must not equal anyone's e-mail either (it would answer for that e-mail).
    const alsoEmail = column === "user_login" ? " OR user_email = ?" : "";
    for (;;) {
      const candidate = firstFree(base, taken, max);
      const clash = await session.rows<RowDataPacket>(
        `SELECT 1 AS taken FROM ${this.users} WHERE ${column} = ?${alsoEmail} LIMIT 1`,
        alsoEmail ? [candidate, candidate] : [candidate],
      );
      if (clash.length === 0) return candidate;
      taken.add(candidate.toLowerCase());
    }
  }

  /** Keeps store_user_link (uuid → wp_users.ID) in step with the shop's usermeta. */
  private recordLink(uuid: string, storeUserId: string): Promise<void> {
    return putStoreUserLink(this.db, { uuid, storeUserId, createdAt: this.clock.now() });
  }
}

/**
 * `display_name` as WordPress stores it: &<> escaped like the names. Escaping can push long names
 * past the column's 250 characters; the login always fits.
 */
function fitDisplayName(displayName: string, login: string): string {
  const escaped = escapeHtml(displayName);
  return escaped.length <= DISPLAY_NAME_MAX ? escaped : login;
}

// '!' rather than the default '\': a backslash escape would depend on NO_BACKSLASH_ESCAPES.
const SEARCH_WHERE =
  "user_login LIKE ? ESCAPE '!' OR user_email LIKE ? ESCAPE '!' OR user_nicename LIKE ? ESCAPE '!'";

function searchValues(prefix: string): string[] {
  const pattern = `${escapeLike(prefix)}%`;
  return [pattern, pattern, pattern];
}

function escapeLike(text: string): string {
  return text.replace(/[!%_]/g, (char) => `!${char}`);
}
