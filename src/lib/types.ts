import type { OpenAPIHono, RouteConfig, RouteHandler } from "@hono/zod-openapi";
import type { Principal } from "../auth/principal";
import type { Deps } from "./deps";

/**
 * What a request carries through the app. Open for extension: the services container adds its
 * own entry where it is defined (the container module), so this file needs nothing above lib.
 */
export interface AppVariables {
  requestId: string;
  deps: Deps;
  /** Set by the access middleware of every non-public route. */
  principal: Principal;
  /** The TCP peer, kept when the request object is replaced (client-address.ts). */
  peerAddress?: string | null;
}

export interface AppBindings {
  Variables: AppVariables;
}

export type AppOpenAPI = OpenAPIHono<AppBindings>;

/** A handler typed by its route definition, so it keeps full typing in its own file. */
export type AppRouteHandler<R extends RouteConfig> = RouteHandler<R, AppBindings>;
