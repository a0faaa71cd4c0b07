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

export interface NewCustomer {
  email: string;
  password: string;
  firstName: string;
  lastName: string;
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
