// The frame of every console page: a skip link, a banner with the signed-in admin and a sign-out
// button, the navigation to every screen of README "Console", the main region with the page's heading
// and its flash message, and the same-origin style sheet and scripts (never inline: the CSP of
// README "Console" allows none).
import type { Child } from "hono/jsx";
import type { Principal } from "../../auth/principal";
import { assets } from "../assets";
import { flashMessage } from "./flash";
import { type ConsoleContext, render } from "./respond";

/** The screens of README "Console", in the order of its table: the navigation's links. */
export const SECTIONS = [
  { id: "dashboard", href: "/console", label: "Dashboard" },
  { id: "books", href: "/console/books", label: "Books" },
  { id: "print-runs", href: "/console/print-runs", label: "Print runs" },
  { id: "codes", href: "/console/codes", label: "Codes" },
  { id: "activations", href: "/console/activations", label: "Activations" },
  { id: "users", href: "/console/users", label: "Users" },
  { id: "shop", href: "/console/shop", label: "Shop" },
  { id: "apks", href: "/console/apks", label: "APKs" },
  { id: "audit", href: "/console/audit", label: "Audit log" },
  { id: "system", href: "/console/system", label: "System" },
] as const;

export type SectionId = (typeof SECTIONS)[number]["id"];

/**
 * htmx's own defaults would add a <style> element (indicator styles) and evaluate attribute
 * code; both are off, so htmx runs under the console's CSP.
 */
const HTMX_CONFIG = JSON.stringify({
  includeIndicatorStyles: false,
  allowEval: false,
  allowScriptTags: false,
  historyCacheSize: 0,
});

export interface PageOptions {
  title: string;
  /** The navigation entry marked as the current one. */
  section?: SectionId;
  status?: number;
  /** Without it (the sign-in page, errors before a session) the navigation is left out. */
  admin?: Principal | undefined;
}

export function Layout(props: PageOptions & { flash?: string | undefined; children?: Child }) {
  const { title, section, admin, flash, children } = props;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="htmx-config" content={HTMX_CONFIG} />
        <title>{`${title} · bookdist console`}</title>
        <link rel="stylesheet" href={assets.css.url} />
        <script src={assets.htmx.url} defer />
        <script src={assets.upload.url} defer />
      </head>
      <body>
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        <header class="banner">
          <a class="brand" href="/console">
            bookdist console
          </a>
          {admin && (
            <form class="sign-out" method="post" action="/console/logout">
              <span class="who">{admin.email}</span>
              <button type="submit">Sign out</button>
            </form>
          )}
        </header>
        {admin && (
          <nav class="sections" aria-label="Console sections">
            <ul>
              {SECTIONS.map((s) => (
                <li>
                  <a href={s.href} aria-current={s.id === section ? "page" : undefined}>
                    {s.label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        )}
        <main id="main" tabindex={-1}>
          <h1>{title}</h1>
          {flash && (
            <p class="flash" role="status">
              {flash}
            </p>
          )}
          {children}
        </main>
        <footer class="footer">
          <p>bookdist</p>
        </footer>
      </body>
    </html>
  );
}

/**
 * A whole page in the console's frame: what every screen answers with. The signed-in admin (if
 * any) and the flash message (`?done=`) are read from the request.
 */
export function page(c: ConsoleContext, options: PageOptions, body: Child): Promise<Response> {
  const admin = options.admin ?? c.get("principal");
  return render(
    c,
    <Layout {...options} admin={admin} flash={flashMessage(c.req.query("done"), c.req.query())}>
      {body}
    </Layout>,
    options.status ?? 200,
  );
}
