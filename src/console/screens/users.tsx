// GET /console/users and /console/users/{uuid} (README "Console"): the store's users searched by a
// prefix of e-mail, login or name (services/users.ts searchUsers: an index range, one page; htmx
// searches as staff type), and one user's roles, activations, shop-order grants, API sessions (end
// them) and device tokens (revoke one), each change after a confirmation page of its own.
import type { Hono } from "hono";
import type { AppBindings } from "../../http/types";
import { AppError } from "../../lib/problems";
import { listActivations } from "../../services/activations";
import { revokeDeviceToken } from "../../services/device-tokens";
import {
  endSessionsOfUser,
  listDeviceTokensOfUser,
  listSessionsOfUser,
  shopGrantsOfUser,
} from "../../services/user-access";
import {
  getUser,
  searchUsersPage,
  USER_SEARCH_BOUND,
  USER_SEARCH_MIN,
  type UserSortField,
  userSortFields,
} from "../../services/users";
import { page } from "../kit/layout";
import { confirmPage } from "../kit/pages";
import { adminOf, auditSourceOf, type ConsoleContext, idParam, redirectTo } from "../kit/respond";
import { DataTable, ListQuery, PAGE_SIZE, SearchForm, TableScroll } from "../kit/table";
import { ActivationsTable, BookLink, bookTitles, Facts, pageRows, when, windowOf } from "./shared";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function uuidParam(c: ConsoleContext): string {
  const uuid = c.req.param("uuid") ?? "";
  if (!UUID.test(uuid)) throw new AppError("NOT_FOUND", "No such user.");
  return uuid.toLowerCase();
}

const userPath = (uuid: string) => `/console/users/${uuid}`;

/** How many of a user's shop grants the page shows: the latest. */
const GRANTS_SHOWN = 25;

export function mountUsers(router: Hono<AppBindings>): void {
  router.get("/users", async (c) => {
    const query = ListQuery.of(c, userSortFields, { sort: "email" as UserSortField, dir: "asc" }, ["q"]);
    const q = query.filter("q") ?? "";
    const { db, store } = c.get("deps");
    const tooShort = q !== "" && q.length < USER_SEARCH_MIN;
    const window = { sort: windowOf(query).sort, limit: PAGE_SIZE, offset: query.page * PAGE_SIZE };
    const list = q.length >= USER_SEARCH_MIN ? await searchUsersPage(db, store, q, window) : undefined;
    const rows = (list?.rows ?? []).map(({ user, roles }) => (
      <tr>
        <td>
          <a href={userPath(user.uuid)}>{user.email}</a>
        </td>
        <td>{user.login}</td>
        <td>{[user.firstName, user.lastName].filter(Boolean).join(" ") || user.displayName}</td>
        <td>{roles.join(", ")}</td>
      </tr>
    ));
    return page(
      c,
      { title: "Users", section: "users" },
      <>
        <SearchForm action="/console/users" target="users" label="E-mail or name" value={q}>
          <input type="hidden" name="sort" value={query.sort} />
          <input type="hidden" name="dir" value={query.dir} />
        </SearchForm>
        <div id="users" aria-live="polite">
          {list?.total.more && (
            <p role="status">
              More than {USER_SEARCH_BOUND.toLocaleString("en-US")} users match “{q}”: these pages sort the
              first {USER_SEARCH_BOUND.toLocaleString("en-US")} found. Type more of the e-mail, login or name
              to narrow the search.
            </p>
          )}
          {list ? (
            <DataTable
              id="users-list"
              caption={`Users whose e-mail, login or name starts with “${q}”`}
              columns={[
                { label: "E-mail", sort: "email" as UserSortField },
                { label: "Login", sort: "login" as UserSortField },
                { label: "Name" },
                { label: "Roles" },
              ]}
              query={query}
              rows={rows}
              total={list.total.count}
              more={list.total.more}
              hasNext={list.hasNext}
              empty="No user's e-mail, login or name starts with that."
            />
          ) : (
            <p role="status">
              {tooShort
                ? `Type at least ${USER_SEARCH_MIN} characters: the start of an e-mail address, a login or a name.`
                : "Type the start of an e-mail address, a login or a name."}
            </p>
          )}
        </div>
      </>,
    );
  });

  router.get("/users/:uuid", async (c) => {
    const uuid = uuidParam(c);
    const deps = c.get("deps");
    const { db, store } = deps;
    const { user, roles } = await getUser(db, store, uuid);
    const query = ListQuery.of(c, ["createdAt"] as const, { sort: "createdAt", dir: "desc" });
    const [activations, grants, sessions, tokens] = await Promise.all([
      listActivations(db, windowOf(query), { userUuid: uuid }).then(pageRows),
      shopGrantsOfUser(db, uuid, GRANTS_SHOWN),
      listSessionsOfUser(db, uuid),
      listDeviceTokensOfUser(deps, uuid),
    ]);
    const titles = await bookTitles(
      db,
      [...activations.rows, ...grants].map((row) => row.bookId),
    );
    return page(
      c,
      { title: user.email, section: "users" },
      <>
        <Facts
          rows={[
            ["E-mail", user.email],
            ["Login", user.login],
            ["Name", [user.firstName, user.lastName].filter(Boolean).join(" ") || user.displayName || "—"],
            ["Roles", roles.join(", ")],
            ["Roles in the store", user.storeRoles.join(", ") || "—"],
            ["Uuid", <code>{user.uuid}</code>],
          ]}
        />
        <p>
          <a class="button" href={`/console/activations/new?email=${encodeURIComponent(user.email)}`}>
            Grant a book by hand
          </a>
        </p>
        <h2>Activations</h2>
        <ActivationsTable
          id="user-activations"
          caption="The books this user holds"
          query={query}
          rows={activations.rows}
          total={activations.total}
          titles={titles}
          dateSort="createdAt"
        />
        <h2>Shop orders</h2>
        <TableScroll label={`The latest ${GRANTS_SHOWN} grants of this user's shop orders`}>
          <table>
            <caption>{`The latest ${GRANTS_SHOWN} grants of this user's shop orders`}</caption>
            <thead>
              <tr>
                <th scope="col">Order</th>
                <th scope="col">Book</th>
                <th scope="col">State</th>
                <th scope="col">Since</th>
              </tr>
            </thead>
            <tbody>
              {grants.length === 0 ? (
                <tr>
                  <td colspan={4}>No shop order granted this user a book.</td>
                </tr>
              ) : (
                grants.map((g) => (
                  <tr>
                    <td>
                      <a href={`/console/shop?order=${g.orderId}`}>{g.orderId}</a>
                    </td>
                    <td>
                      <BookLink id={g.bookId} title={titles.get(g.bookId)} />
                    </td>
                    <td>{g.state}</td>
                    <td>{when(g.createdAt)}</td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </TableScroll>
        <h2>Sessions</h2>
        <TableScroll label="The user's signed-in apps and browsers (API sessions)">
          <table>
            <caption>The user's signed-in apps and browsers (API sessions)</caption>
            <thead>
              <tr>
                <th scope="col">Signed in</th>
                <th scope="col">Last seen</th>
                <th scope="col">Ends</th>
                <th scope="col">App</th>
              </tr>
            </thead>
            <tbody>
              {sessions.length === 0 ? (
                <tr>
                  <td colspan={4}>No sessions.</td>
                </tr>
              ) : (
                sessions.map((s) => (
                  <tr>
                    <td>{when(s.createdAt)}</td>
                    <td>{when(s.lastSeenAt)}</td>
                    <td>{when(s.expiresAt)}</td>
                    <td>{s.userAgent ?? "—"}</td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </TableScroll>
        {sessions.length > 0 && (
          <p>
            <a class="button danger" href={`${userPath(uuid)}/sessions/end`}>
              End all sessions
            </a>
          </p>
        )}
        <h2>Device tokens</h2>
        <TableScroll label="The user's device tokens in force">
          <table>
            <caption>The user's device tokens in force</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Starts with</th>
                <th scope="col">Scopes</th>
                <th scope="col">Made</th>
                <th scope="col">Last used</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {tokens.length === 0 ? (
                <tr>
                  <td colspan={6}>No device tokens.</td>
                </tr>
              ) : (
                tokens.map((d) => (
                  <tr>
                    <td>{d.name}</td>
                    <td>
                      <code>{d.prefix}</code>
                    </td>
                    <td>{d.scopes.split(",").join(", ")}</td>
                    <td>{when(d.createdAt)}</td>
                    <td>{when(d.lastUsedAt)}</td>
                    <td>
                      <a href={`${userPath(uuid)}/device-tokens/${d.id}/revoke`}>Revoke</a>
                    </td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </TableScroll>
      </>,
    );
  });

  router.get("/users/:uuid/sessions/end", async (c) => {
    const uuid = uuidParam(c);
    const { user } = await getUser(c.get("deps").db, c.get("deps").store, uuid);
    return confirmPage(c, {
      title: "End the user's sessions?",
      section: "users",
      action: `${userPath(uuid)}/sessions/end`,
      button: "End sessions",
      cancelHref: userPath(uuid),
      children: (
        <p>
          End every session of {user.email}? Their apps and browsers are signed out and must sign in again;
          device tokens stay (revoke them one by one).
        </p>
      ),
    });
  });

  router.post("/users/:uuid/sessions/end", async (c) => {
    const uuid = uuidParam(c);
    const { db, store, clock } = c.get("deps");
    await getUser(db, store, uuid);
    await endSessionsOfUser(db, auditSourceOf(c), uuid, clock.now());
    return redirectTo(c, userPath(uuid), "sessions-ended");
  });

  const tokenOf = async (c: ConsoleContext, uuid: string) => {
    const id = idParam(c);
    const token = (await listDeviceTokensOfUser(c.get("deps"), uuid)).find((d) => d.id === id);
    if (!token) throw new AppError("NOT_FOUND", `No device token ${id} in force.`);
    return token;
  };

  router.get("/users/:uuid/device-tokens/:id/revoke", async (c) => {
    const uuid = uuidParam(c);
    const token = await tokenOf(c, uuid);
    return confirmPage(c, {
      title: "Revoke the device token?",
      section: "users",
      action: `${userPath(uuid)}/device-tokens/${token.id}/revoke`,
      button: "Revoke",
      cancelHref: userPath(uuid),
      children: (
        <p>
          Revoke the device token “{token.name}” (starting <code>{token.prefix}</code>)? The reading app using
          it stops syncing at once and needs a new token.
        </p>
      ),
    });
  });

  router.post("/users/:uuid/device-tokens/:id/revoke", async (c) => {
    const uuid = uuidParam(c);
    const token = await tokenOf(c, uuid);
    await revokeDeviceToken(c.get("deps"), adminOf(c), auditSourceOf(c), token.id);
    return redirectTo(c, userPath(uuid), "device-token-revoked");
  });
}
