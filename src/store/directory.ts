// The shop's users, wherever they live: the embedded tables or a WordPress/WooCommerce database.

export interface StoreUser {
  /** The store's own key (wp_users.ID), as text so any store fits. */
  storeUserId: string;
  /** bookdist's stable id for the user (usermeta `_bookdist_uuid`). */
  uuid: string;
  login: string;
  email: string;
  displayName: string;
  firstName: string;
  lastName: string;
  /** Role names as the store knows them: customer, administrator, shop_manager, … */
  storeRoles: string[];
  /** A digest of the stored password hash (auth/password-stamp.ts): changes when the password does. */
  passwordStamp: string;
}

/**
 * The shop's users as order reconciliation needs them (services/shop-sync.ts): an order's customer
 * by the shop's user id, a claimed guest order's by the uuid that claimed it. Never by e-mail: an
 * address proves nothing (README "Shop orders"). The WordPress store has them.
 */
export interface ShopCustomers {
  findByStoreUserId(storeUserId: string): Promise<StoreUser | null>;
  findByUuid(uuid: string): Promise<StoreUser | null>;
}

export interface NewCustomer {
  email: string;
  password: string;
  firstName: string;
  lastName: string;
}

/** The orders a user search can be read in (GET /user `sort`); without one, the store's own id order. */
export const userSortFields = ["email", "login"] as const;
export type UserSortField = (typeof userSortFields)[number];

/**
 * A prefix search of the store's users (GET /user, the console's users screen): `prefix` is
 * trimmed and at least 2 characters, in the case it was typed (each store folds case as its
 * database does). Read from indexes, one window at a time: never a scan of every user.
 */
export interface UserSearch {
  prefix: string;
  sort: { field: UserSortField; direction: "asc" | "desc" }[];
  limit: number;
  offset: number;
  /**
   * Sort only the first `within` matches the store's indexes give (the console's bound on a wide
   * prefix, services/users.ts searchUsersPage): at most that many rows are sorted, whatever the
   * number of matches. Without it, every match is in the order.
   */
  within?: number;
}

export interface StoreDirectory {
  readonly kind: "embedded" | "wordpress";
  /**
   * The user with this login name or e-mail and password, or null — for an unknown user and a
   * wrong password alike, after comparable work, so neither answer nor timing tells them apart.
   * A name that looks like an e-mail (holds `@`) resolves by e-mail first, then by login; any
   * other name by login first. Gives the user a uuid at the first login if the store did not have
   * one yet. `beforeCheck` runs once the name is resolved and before any password is hashed, with
   * the store's id of the user it names (null for none); it may throw to refuse the attempt.
   */
  authenticate(
    loginOrEmail: string,
    password: string,
    beforeCheck?: (storeUserId: string | null) => Promise<void>,
  ): Promise<StoreUser | null>;
  /** Creates a customer; throws AppError EMAIL_ALREADY_EXISTS when the e-mail (or login) is taken. */
  register(customer: NewCustomer): Promise<StoreUser>;
  findByUuid(uuid: string): Promise<StoreUser | null>;
  /**
   * The window of users whose e-mail, login or name starts with the prefix (case-insensitive;
   * what each store searches is said by its driver, README "Finding users and activations"), in `sort` order then the
   * store's id. Users who had no uuid yet get one, as at a first login.
   */
  searchUsers(search: UserSearch): Promise<StoreUser[]>;
  /**
   * How many users `searchUsers` finds for the prefix, over all windows; with `upTo`, counting
   * stops at `upTo` + 1 matches (read from the indexes: at most that many entries).
   */
  countUsers(prefix: string, upTo?: number): Promise<number>;
  /**
   * The user with this login or e-mail, without a password (the admin command line): an
   * identifier with an `@` is an e-mail first, then a login; any other is a login first, then an
   * e-mail: the same look-up as `authenticate`. Like a first login, gives the user a uuid if the
   * store did not have one yet.
   */
  findUser(loginOrEmail: string): Promise<StoreUser | null>;
  /** Throws when the store cannot be reached (for /health). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Whether the store can name a shop order's customer: the WordPress store (SHOP_ORDERS=on needs it). */
export function hasShopCustomers(store: StoreDirectory): store is StoreDirectory & ShopCustomers {
  return (
    store.kind === "wordpress" &&
    "findByStoreUserId" in store &&
    typeof store.findByStoreUserId === "function"
  );
}
