// The store's users as staff look them up (GET /user, GET /user/{userUUID}, the console's users
// screen): a prefix search read from the store's indexes one window at a time, and one user by
// uuid, each with the roles bookdist gives them (the store's role or an operator's grant).
import type { Database } from "#db";
import { type Role, rolesFor } from "../auth/principal";
import type { BoundedPage, ListRead, ListWindow, RowStream } from "../lib/list-window";
import { nextTurn } from "../lib/loop-slices";
import { adminGrantsAmong } from "../repositories/admin-grants";
import type { StoreDirectory, StoreUser, UserSortField } from "../store/directory";
import { found } from "./guards";
import { LIST_CHUNK } from "./page";

export { type UserSortField, userSortFields } from "../store/directory";

/** A store user with the roles bookdist gives them. */
export interface UserWithRoles {
  user: StoreUser;
  roles: Role[];
}

/** The shortest search (listUsers): shorter prefixes would match most of a large shop. */
export const USER_SEARCH_MIN = 2;

async function withRoles(db: Database, users: StoreUser[]): Promise<UserWithRoles[]> {
  const granted = await adminGrantsAmong(
    db,
    users.map((user) => user.uuid),
  );
  return users.map((user) => ({ user, roles: rolesFor(user.storeRoles, granted.has(user.uuid)) }));
}

/**
 * The users whose e-mail, login, first or last name starts with `q` (case-insensitive; at least
 * USER_SEARCH_MIN characters, which the route checks), in the window's order, then the store's.
 * A whole list (no page) is read in LIST_CHUNK windows, one per event-loop turn.
 */
export async function searchUsers(
  db: Database,
  store: StoreDirectory,
  q: string,
  window: ListWindow<UserSortField>,
): Promise<ListRead<UserWithRoles>> {
  const prefix = q.trim();
  const read = async (limit: number, offset: number) =>
    withRoles(db, await store.searchUsers({ prefix, sort: window.sort, limit, offset }));
  if (window.limit !== undefined) {
    const offset = window.offset ?? 0;
    const total = await store.countUsers(prefix);
    if (offset >= total) return { rows: [], total };
    // Up to USER_SEARCH_BOUND matches, all of them are read and the store sorts them (the same
    // order): no plan then walks a whole index in the sort's order (searchUsersPage).
    if (total <= USER_SEARCH_BOUND) {
      const users = await store.searchUsers({
        prefix,
        sort: window.sort,
        limit: window.limit,
        offset,
        within: total,
      });
      return { rows: await withRoles(db, users), total };
    }
    return { rows: await read(window.limit, offset), total };
  }
  const first = await read(LIST_CHUNK + 1, 0);
  if (first.length <= LIST_CHUNK) return { rows: first, total: first.length };
  return {
    open: async (): Promise<RowStream<UserWithRoles>> => {
      const total = await store.countUsers(prefix);
      let closed = false;
      async function* chunks(): AsyncGenerator<UserWithRoles[]> {
        // The store (maybe the shop's own server) has no snapshot to read in: at most `total`
        // rows, so the array never outgrows X-Total-Count; users deleted meanwhile make it shorter.
        for (let offset = 0; offset < total && !closed; offset += LIST_CHUNK) {
          const rows = await read(Math.min(LIST_CHUNK, total - offset), offset);
          if (rows.length > 0) yield rows;
          if (rows.length < LIST_CHUNK) return;
          await nextTurn();
        }
      }
      return {
        total,
        chunks: chunks(),
        close: async () => {
          closed = true;
        },
      };
    },
  };
}

/**
 * How many matches the console's user search counts and sorts at most (searchUsersPage): a
 * prefix as wide as "an" in a shop of a million users matches tens of thousands.
 */
export const USER_SEARCH_BOUND = 1000;

/**
 * One page of searchUsers for the console, bounded: the matches are counted up to
 * USER_SEARCH_BOUND, and when there are more, the page is one of the first USER_SEARCH_BOUND the
 * store's indexes give (sorted among themselves), never a sort of every match; the console says so
 * and asks for more of the prefix. Up to the bound the page is exactly GET /user's (the same
 * order, sorted from the matches read once).
 */
export async function searchUsersPage(
  db: Database,
  store: StoreDirectory,
  q: string,
  window: { sort: ListWindow<UserSortField>["sort"]; limit: number; offset: number },
): Promise<BoundedPage<UserWithRoles>> {
  const prefix = q.trim();
  const found = await store.countUsers(prefix, USER_SEARCH_BOUND);
  const total = { count: Math.min(found, USER_SEARCH_BOUND), more: found > USER_SEARCH_BOUND };
  if (window.offset >= total.count) return { rows: [], hasNext: false, total };
  const users = await store.searchUsers({
    prefix,
    sort: window.sort,
    limit: window.limit,
    offset: window.offset,
    // Within the bound too: then the first USER_SEARCH_BOUND are all the matches, sorted by the
    // store (the embedded one in memory), so no plan can walk a whole index in the sort's order
    // (Postgres did at S3 for an ORDER BY over the three ranges: 9.8 s for 11 matches).
    within: USER_SEARCH_BOUND,
  });
  return {
    rows: await withRoles(db, users),
    hasNext: window.offset + window.limit < total.count,
    total,
  };
}

/** The user with this uuid and their roles; 404 when the store has none. */
export async function getUser(db: Database, store: StoreDirectory, uuid: string): Promise<UserWithRoles> {
  const user = found((await store.findByUuid(uuid)) ?? undefined, `User ${uuid}`);
  const [withRole] = await withRoles(db, [user]);
  return withRole!;
}

/**
 * The user with this e-mail (or login), as the console's forms name a user (README "Console": the field E-mail),
 * with their roles; undefined when the store has none. The same look-up as a sign-in's.
 */
export async function findUserByEmail(
  db: Database,
  store: StoreDirectory,
  email: string,
): Promise<UserWithRoles | undefined> {
  const user = await store.findUser(email.trim());
  if (!user) return undefined;
  const [withRole] = await withRoles(db, [user]);
  return withRole;
}
