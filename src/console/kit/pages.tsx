// Pages of their own: the confirmation a destructive action asks for (README "Console": delete, revoke,
// disable a batch, activate an APK with another signer), and the error pages. A 500 shows the
// request id and nothing else (the log has the rest).

import type { ErrorHandler } from "hono";
import type { Child } from "hono/jsx";
import { toAppError } from "../../http/error-handler";
import type { AppBindings } from "../../http/types";
import { describeError } from "../../lib/logger";
import { Form, Submit } from "./form";
import { page } from "./layout";
import type { ConsoleContext } from "./respond";

/**
 * "Delete the book «Title»?": what will happen, a button named for the action (Delete, Revoke,
 * Disable, Activate) that POSTs to `action`, and a way back that changes nothing.
 */
export function confirmPage(
  c: ConsoleContext,
  props: {
    title: string;
    section?: Parameters<typeof page>[1]["section"];
    /** What happens, in a sentence or two. */
    children: Child;
    action: string;
    button: string;
    cancelHref: string;
    hidden?: Record<string, string>;
  },
): Promise<Response> {
  return page(
    c,
    { title: props.title, section: props.section },
    <section class="confirm" aria-labelledby="confirm-question">
      <div id="confirm-question">{props.children}</div>
      <Form action={props.action}>
        {Object.entries(props.hidden ?? {}).map(([name, value]) => (
          <input type="hidden" name={name} value={value} />
        ))}
        <div class="actions">
          <Submit label={props.button} danger />
          <a class="button secondary" href={props.cancelHref}>
            Cancel
          </a>
        </div>
      </Form>
    </section>,
  );
}

export function notFoundPage(c: ConsoleContext): Promise<Response> {
  return page(
    c,
    { title: "Page not found", status: 404 },
    <p>
      There is nothing at this address. <a href="/console">Go to the dashboard</a>.
    </p>,
  );
}

export function forbiddenPage(c: ConsoleContext, message: string): Promise<Response> {
  return page(c, { title: "Not allowed", status: 403 }, <p>{message}</p>);
}

/**
 * Every error under /console as a page: a known one (404, 409, 503, …) with its sentence, an
 * unexpected one as a 500 with only the request id (the stack goes to the log with that id).
 */
export const consoleErrorHandler: ErrorHandler<AppBindings> = async (error, c) => {
  const requestId = c.get("requestId");
  const known = toAppError(error);
  if (!known || known.status >= 500) {
    const logger = c.get("deps").logger;
    if (known) logger.warn("request failed", { requestId, code: known.code, ...known.logFields });
    else logger.error("unexpected error", { requestId, ...describeError(error) });
    const status = known?.status ?? 500;
    const response = await page(
      c,
      { title: status === 500 ? "Something went wrong" : "Try again shortly", status },
      status === 500 ? (
        <p>
          The console could not answer. Request id: <code>{requestId}</code>
        </p>
      ) : (
        <p>
          {known?.message} Request id: <code>{requestId}</code>
        </p>
      ),
    );
    for (const [name, value] of Object.entries(known?.headers ?? {})) response.headers.set(name, value);
    return response;
  }
  if (known.code === "NOT_FOUND") return notFoundPage(c);
  const response = await page(
    c,
    { title: known.code === "FORBIDDEN" ? "Not allowed" : "That did not work", status: known.status },
    <p>{known.message}</p>,
  );
  for (const [name, value] of Object.entries(known.headers)) response.headers.set(name, value);
  return response;
};
