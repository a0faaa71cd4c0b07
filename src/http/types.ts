import type { RouteConfig, RouteHandler } from "@hono/zod-openapi";
import type { Principal } from "../auth/principal";
import type { Deps } from "../deps";
import type { Runtime } from "../services/runtime";

/** What a request carries through the app. */
export interface AppVariables {
  requestId: string;
  /** A client's own sane X-Request-Id that was not echoed (its peer is no trusted proxy), for the log. */
  clientRequestId?: string;
  deps: Deps;
  /**
   * The app's long-lived helpers, built once from `deps` (token signer, account check, Basic
   * cache, throttle, health checks): not the services/ folder's functions, which take `deps`.
   */
  runtime: Runtime;
  /** Set by the access middleware of every non-public route. */
  principal: Principal;
  /**
   * Set by a handler whose client reads one exact media type (KOReader's sync, README "Reading
   * progress": `application/json`, no charset): the frame then adds no charset.
   */
  exactContentType?: boolean;
}

export interface AppBindings {
  Variables: AppVariables;
}

/** A handler typed by its route definition, so it keeps full typing in its own file. */
export type AppRouteHandler<R extends RouteConfig> = RouteHandler<R, AppBindings>;
