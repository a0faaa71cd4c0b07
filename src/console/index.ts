// The publisher's console (README "Console"): server-rendered pages under /console for
// staff, beside the JSON API and outside its OpenAPI document.
//
// How a screen module is written (one file per screen in screens/, e.g. screens/books.tsx):
//
// 1. Export one `mountX(router)` that adds the screen's routes with paths relative to /console
//    (`router.get("/books/:id", …)`), and add it to SCREENS below. Each path is a bookmarkable URL;
//    a list keeps its search, filters, sort and page in the query string (kit/table.tsx ListQuery)
//    and reads ONE page from a service.
// 2. Handlers call services only (src/services/…) — never a repository, never the JSON API over
//    HTTP — passing `c.get("deps")` and, for a change, `auditSourceOf(c)` (kit/respond.ts), so the
//    audit log records the change as made "via console" by the signed-in admin (`adminOf(c)`).
// 3. Answer with `page(c, { title, section }, <>…</>)` (kit/layout.tsx): the layout adds the
//    navigation, skip link, landmarks and the flash message. Never write a <script> or a style
//    attribute: the CSP forbids inline code; style goes into assets/console.css.
// 4. Reads are GETs; every change is a POST of a <Form> (kit/form.tsx), answered with
//    `redirectTo(c, path, "flash-key")` (303; keys in kit/flash.ts). A failed form is rendered again
//    with status 400 (409 for a conflict), each error beside its field (`withFieldErrors`, the
//    contract's field names as keys) and every typed value kept.
// 5. A destructive action (delete, revoke, disable, activate with another signer) is a GET page of
//    its own, `confirmPage(c, { …, button: "Delete" })` (kit/pages.tsx), whose button POSTs it.
// 6. Throw AppError as services do: kit/pages.tsx consoleErrorHandler turns a 404 into the console's
//    404 page, a 409 or 403 into a page with its sentence, anything unexpected into a 500 that shows
//    only the request id. `idParam(c)` turns a malformed id into the 404 page.
// 7. Uploads: `<Form upload>` with a `<FileField>`; the handler streams the multipart body through
//    the same receiveFile the API uses (no buffering). assets/upload.js adds the progress bar.
// 8. htmx (assets.htmx) only for live search and paging in place: kit/table.tsx adds its
//    attributes to the list links and SearchForm; every page works without it.
// 9. Tests: test/console/<screen>.test.ts over the in-process app (test/console/helpers.ts signs in),
//    and a row in the browser test's screen table (test/console/browser.test.ts).
//
// Already done for every screen by this router: the CSP/no-store/referrer headers (headers.ts, on
// every answer), the cross-site POST guard (csrf.ts), the session gate (session.ts: a 303 to the
// sign-in page with a safe `next`), and the static files (assets.ts).
import { Hono } from "hono";
import type { Config } from "../config";
import type { AppBindings } from "../http/types";
import { mountAssets } from "./assets";
import { csrfGuard } from "./csrf";
import { consoleErrorHandler, notFoundPage } from "./kit/pages";
import { mountActivations } from "./screens/activations";
import { mountApks } from "./screens/apks";
import { mountAudit } from "./screens/audit";
import { mountBooks } from "./screens/books";
import { mountCodes } from "./screens/codes";
import { mountDashboard } from "./screens/dashboard";
import { mountPrintRuns } from "./screens/print-runs";
import { mountShop } from "./screens/shop";
import { mountSignIn } from "./screens/sign-in";
import { mountSystem } from "./screens/system";
import { mountUsers } from "./screens/users";
import { requireConsoleSession } from "./session";

export { CONSOLE_BASE, consoleHeaders, isConsolePath } from "./headers";

/** The screens behind the session gate, each a module of screens/. */
const SCREENS: ReadonlyArray<(router: Hono<AppBindings>) => void> = [
  mountDashboard,
  mountBooks,
  mountPrintRuns,
  mountCodes,
  mountActivations,
  mountUsers,
  mountShop,
  mountApks,
  mountAudit,
  mountSystem,
];

export function consoleRouter(config: Config): Hono<AppBindings> {
  const router = new Hono<AppBindings>();
  router.use(csrfGuard(config.publicUrl));
  // Before the gate: the sign-in page and its files need no session.
  mountAssets(router);
  mountSignIn(router);
  router.use(requireConsoleSession());
  for (const mount of SCREENS) mount(router);
  router.all("*", (c) => notFoundPage(c));
  router.onError(consoleErrorHandler);
  return router;
}
