import type { OpenAPIHono, RouteConfig, RouteHandler } from "@hono/zod-openapi";
import type { Principal } from "../auth/principal";
import type { Services } from "../services/container";
import type { Deps } from "./deps";

export interface AppBindings {
  Variables: {
    requestId: string;
    deps: Deps;
    services: Services;
    /** Set by the access middleware of every non-public route. */
    principal: Principal;
  };
}

export type AppOpenAPI = OpenAPIHono<AppBindings>;

/** A handler typed by its route definition, so it keeps full typing in its own file. */
export type AppRouteHandler<R extends RouteConfig> = RouteHandler<R, AppBindings>;
