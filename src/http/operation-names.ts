// Which operation of the OpenAPI document a request reached, so that a log line names it as the
// document, the SDKs and the route modules do (`getBook`), not only by the path it was sent to.
import type { Context } from "hono";
import { matchedRoutes } from "hono/route";
import { type OpenApiRegistry, registeredRoutes, routingPathOf } from "./library-internals";

/** An operation as the log names it: its operationId and the document's path template. */
export interface OperationName {
  operationId: string;
  /** e.g. `/book/{id}` */
  route: string;
}

/** The route label of requests no route took (404s, 405s): one label, however many paths. */
const UNMATCHED_ROUTE = "unmatched";

/**
 * The operations of an app by the key hono routes them under (`GET /book/:id`), read from its
 * OpenAPI registry, so the name is the document's operationId whatever the route module calls
 * its export. Read when first asked, and again when a key is not found and the registry grew
 * since (tests add routes): the registry's `definitions` is a new copy of every definition each
 * time it is read, too much for every request (bench/README.md, "A leaner request").
 */
export class OperationNames {
  private byRoute = new Map<string, OperationName>();
  private builtFor = -1;

  constructor(private readonly registry: OpenApiRegistry) {}

  /**
   * The operation whose handler (or whose access check or validator) answered `c` (undefined for
   * a request no operation took: a 404, a 405, an alias such as `/openapi.json`), and the route it
   * is counted under (metrics' `route` label): the operation's path template, else the app's own
   * route that answered it (the alias), else one label for everything no route took, so that
   * made-up paths cannot grow the label set. Asked after the request ran, when `routeIndex` is
   * the matched entry that ran last: a middleware of the app ("*") when nothing matched, else the
   * operation's own handler chain. One look at hono's match for both.
   */
  answered(c: Context): { operation: OperationName | undefined; route: string } {
    const ran = matchedRoutes(c)[c.req.routeIndex];
    if (ran === undefined) return { operation: undefined, route: UNMATCHED_ROUTE };
    const operation = this.lookup(`${ran.method} ${ran.path}`);
    if (operation !== undefined) return { operation, route: operation.route };
    return { operation, route: ran.path.includes("*") ? UNMATCHED_ROUTE : ran.path };
  }

  /**
   * A registered operation is never removed or renamed, so a name once found stays true; only a
   * key not found may belong to a route registered after the index was read.
   */
  private lookup(key: string): OperationName | undefined {
    return this.byRoute.get(key) ?? this.reread().get(key);
  }

  private reread(): Map<string, OperationName> {
    const { length } = this.registry.definitions;
    if (length !== this.builtFor) {
      this.byRoute = new Map();
      for (const route of registeredRoutes(this.registry)) {
        if (route.operationId === undefined) continue;
        this.byRoute.set(`${route.method.toUpperCase()} ${routingPathOf(route.path)}`, {
          operationId: route.operationId,
          route: route.path,
        });
      }
      this.builtFor = length;
    }
    return this.byRoute;
  }
}
