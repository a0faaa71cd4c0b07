// The console over the in-process app: a signed-in admin's cookie, and requests as a browser sends
// them (a same-origin POST carries Origin and Sec-Fetch-Site; a form body is urlencoded).
import { ADMIN_EMAIL, TEST_PASSWORD, type TestApp } from "../helpers/test-app";

export const ORIGIN = "http://localhost";
export const COOKIE_NAME = "__Host-bookdist-console";

export interface ConsoleRequest {
  cookie?: string | undefined;
  form?: Record<string, string>;
  headers?: Record<string, string>;
  body?: RequestInit["body"];
  /** Default true for a POST: the headers of a same-origin form submission. */
  sameOrigin?: boolean;
}

export function consoleRequest(
  t: TestApp,
  method: string,
  path: string,
  options: ConsoleRequest = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.cookie) headers.Cookie = `${COOKIE_NAME}=${options.cookie}`;
  let body = options.body;
  if (options.form) {
    headers["Content-Type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(options.form).toString();
  }
  if (method === "POST" && options.sameOrigin !== false) {
    headers.Origin ??= ORIGIN;
    headers["Sec-Fetch-Site"] ??= "same-origin";
  }
  return Promise.resolve(t.app.request(path, { method, headers, body, redirect: "manual" }));
}

/** The console cookie's value a response sets, or undefined. */
export function cookieSet(response: Response): string | undefined {
  const header = response.headers.get("set-cookie") ?? "";
  const match = new RegExp(`${COOKIE_NAME}=([^;]*)`).exec(header);
  return match?.[1] || undefined;
}

/** Signs in through POST /console/login; returns the cookie value. */
export async function signIn(t: TestApp, email = ADMIN_EMAIL, password = TEST_PASSWORD): Promise<string> {
  const response = await consoleRequest(t, "POST", "/console/login", { form: { email, password } });
  const cookie = cookieSet(response);
  if (response.status !== 303 || !cookie) {
    throw new Error(`console sign-in as ${email}: ${response.status} ${await response.text()}`);
  }
  return cookie;
}

/** A signed-in admin (ADMIN_EMAIL, granted admin). */
export async function signedInAdmin(t: TestApp): Promise<{ cookie: string; uuid: string }> {
  const admin = await t.admin();
  return { cookie: await signIn(t), uuid: admin.uuid };
}

/** The page's text without tags, whitespace collapsed: what a reader sees. */
export function textOf(html: string): string {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, " ")
    .trim();
}

/** Expects a 303 to the sign-in page whose `next` is `next`. */
export function expectLoginRedirect(response: Response, next: string): void {
  if (response.status !== 303) throw new Error(`expected 303, got ${response.status}`);
  const location = response.headers.get("location") ?? "";
  const url = new URL(location, ORIGIN);
  if (url.pathname !== "/console/login" || url.searchParams.get("next") !== next) {
    throw new Error(`expected the sign-in page with next=${next}, got ${location}`);
  }
}
