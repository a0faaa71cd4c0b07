import type { Context } from "hono";
import { clientAddressOf } from "../../http/client-address";
import type { AppBindings, AppRouteHandler } from "../../http/types";
import {
  currentUser,
  login as loginUser,
  type RequestMeta,
  register as registerUser,
} from "../../services/authentication";
import type { OpenedSession } from "../../services/sessions";
import { endSessions } from "../../services/sessions";
import type * as routes from "./authentication.routes";
import { toUser } from "./authentication.schemas";

/** On every answer with a token or the caller's profile (declared in the routes). */
const NO_STORE = { "Cache-Control": "no-store" };

function metaOf(c: Context<AppBindings>): RequestMeta {
  return { clientAddress: clientAddressOf(c), userAgent: c.req.header("user-agent") ?? null };
}

function toSession(session: OpenedSession) {
  return {
    token: session.token,
    tokenType: "Bearer" as const,
    expiresAt: session.expiresAt.toISOString(),
    user: toUser(session.user, session.roles),
  };
}

export const register: AppRouteHandler<typeof routes.register> = async (c) => {
  const session = await registerUser(c.get("deps"), c.get("runtime"), c.req.valid("json"), metaOf(c));
  return c.json(toSession(session), 201, NO_STORE);
};

export const login: AppRouteHandler<typeof routes.login> = async (c) => {
  const session = await loginUser(c.get("deps"), c.get("runtime"), c.req.valid("json"), metaOf(c));
  return c.json(toSession(session), 200, NO_STORE);
};

export const logout: AppRouteHandler<typeof routes.logout> = async (c) => {
  const { allSessions = false } = c.req.valid("json");
  const sessionsEnded = await endSessions(c.get("deps").db, c.get("principal"), allSessions);
  return c.json({ loggedOut: true as const, sessionsEnded }, 200);
};

export const getMe: AppRouteHandler<typeof routes.getMe> = async (c) => {
  const { user, roles } = await currentUser(c.get("deps"), c.get("runtime"), c.get("principal"));
  return c.json(toUser(user, roles), 200, NO_STORE);
};
