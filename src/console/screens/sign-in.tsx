// GET/POST /console/login and POST /console/logout (README "Console"). The password check is
// POST /authentication/login's own (services/authentication.ts verifyLogin: the same throttles, the
// same cost and one message for an unknown name and a wrong password); only admins get a session.
import type { Hono } from "hono";
import { clientAddressOf } from "../../http/client-address";
import type { AppBindings } from "../../http/types";
import { AppError } from "../../lib/problems";
import { verifyLogin } from "../../services/authentication";
import {
  consolePrincipal,
  endConsoleSession,
  NO_CONSOLE_ACCESS,
  openConsoleSession,
} from "../../services/console-sessions";
import { ErrorSummary, Field, type FieldErrors, Form, readForm, Submit } from "../kit/form";
import { page } from "../kit/layout";
import { type ConsoleContext, redirectTo } from "../kit/respond";
import { safeNext } from "../next-path";
import { clearedCookie, consoleCookieOf, sessionCookie } from "../session";

const LABELS = { email: "E-mail", password: "Password" };

function signInPage(
  c: ConsoleContext,
  props: { next: string; email?: string; errors?: FieldErrors; message?: string; status?: number },
) {
  const errors = props.errors ?? {};
  return page(
    c,
    { title: "Sign in", status: props.status ?? 200, admin: undefined },
    <>
      {props.message && (
        <p class="error-summary" role="alert">
          {props.message}
        </p>
      )}
      <ErrorSummary errors={errors} labels={LABELS} />
      <Form action="/console/login" class="sign-in" label="Sign in">
        <input type="hidden" name="next" value={props.next} />
        <Field
          name="email"
          label={LABELS.email}
          type="text"
          autocomplete="username"
          value={props.email}
          error={errors.email}
          required
        />
        <Field
          name="password"
          label={LABELS.password}
          type="password"
          autocomplete="current-password"
          error={errors.password}
          required
        />
        <Submit label="Sign in" />
      </Form>
    </>,
  );
}

export function mountSignIn(router: Hono<AppBindings>): void {
  router.get("/login", async (c) => {
    const next = safeNext(c.req.query("next"));
    const cookie = consoleCookieOf(c);
    const deps = c.get("deps");
    if (cookie && (await consolePrincipal(deps, c.get("runtime"), cookie, deps.clock.now()))) {
      return redirectTo(c, next);
    }
    return signInPage(c, { next });
  });

  router.post("/login", async (c) => {
    const form = await readForm(c);
    const next = safeNext(form.next);
    const email = (form.email ?? "").trim();
    const password = form.password ?? "";
    const errors: FieldErrors = {};
    if (email === "") errors.email = "Enter your e-mail address or login name.";
    if (password === "") errors.password = "Enter your password.";
    if (Object.keys(errors).length > 0) return signInPage(c, { next, email, errors, status: 400 });
    const deps = c.get("deps");
    const runtime = c.get("runtime");
    try {
      const user = await verifyLogin(
        deps,
        runtime,
        { email, password },
        { clientAddress: clientAddressOf(c), userAgent: c.req.header("user-agent") ?? null },
      );
      const { cookieValue } = await openConsoleSession(deps, runtime, user, deps.clock.now());
      c.header("Set-Cookie", sessionCookie(cookieValue));
      return redirectTo(c, next);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      if (error.code === "AUTHENTICATION_FAILED") {
        return signInPage(c, { next, email, message: error.message, status: 401 });
      }
      if (error.code === "FORBIDDEN") {
        return signInPage(c, { next, email, message: NO_CONSOLE_ACCESS, status: 403 });
      }
      if (error.code === "TOO_MANY_REQUESTS") {
        const response = await signInPage(c, {
          next,
          email,
          message: error.message,
          status: 429,
        });
        for (const [name, value] of Object.entries(error.headers)) response.headers.set(name, value);
        return response;
      }
      throw error;
    }
  });

  router.post("/logout", async (c) => {
    const cookie = consoleCookieOf(c);
    if (cookie) await endConsoleSession(c.get("deps"), cookie);
    c.header("Set-Cookie", clearedCookie());
    c.header("Clear-Site-Data", '"cookies"');
    return redirectTo(c, "/console/login", "signed-out");
  });
}
