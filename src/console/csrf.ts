// Cross-site requests cannot change anything in the console (README "Console"): every POST must come
// from the console's own origin. hono/csrf checks `Sec-Fetch-Site: same-origin` or a same-origin
// `Origin`; on top of it a POST that says it is cross-site (`Sec-Fetch-Site` other than
// same-origin, whatever its Origin), or whose body is not a form (hono/csrf looks only at the
// types a cross-site form can send), is refused as well. The JSON API has none of this: curl
// uploads there send no Origin.
import type { MiddlewareHandler } from "hono";
import { csrf } from "hono/csrf";
import { HTTPException } from "hono/http-exception";
import type { AppBindings } from "../http/types";
import { forbiddenPage } from "./kit/pages";

const FORM_TYPES = /^(?:application\/x-www-form-urlencoded|multipart\/form-data)(?:;|$)/i;

const CROSS_SITE =
  "This request came from another site, so nothing was changed. Use the console's own forms.";

export function csrfGuard(publicUrl: string | undefined): MiddlewareHandler<AppBindings> {
  const publicOrigin = publicUrl ? new URL(publicUrl).origin : undefined;
  const guard = csrf({
    origin: (origin, c) => origin === new URL(c.req.url).origin || origin === publicOrigin,
  });
  return async (c, next) => {
    if (c.req.method !== "POST") return next();
    const site = c.req.header("sec-fetch-site");
    const type = c.req.header("content-type") ?? "";
    if ((site !== undefined && site !== "same-origin") || (type !== "" && !FORM_TYPES.test(type))) {
      return forbiddenPage(c, CROSS_SITE);
    }
    let passed = false;
    try {
      await guard(c, async () => {
        passed = true;
        await next();
      });
    } catch (error) {
      if (!passed && error instanceof HTTPException && error.status === 403)
        return forbiddenPage(c, CROSS_SITE);
      throw error;
    }
  };
}
