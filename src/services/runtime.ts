import { BasicAuthCache } from "../auth/basic-cache";
import { LinkSigner } from "../auth/signed-links";
import { TokenSigner } from "../auth/tokens";
import type { Deps } from "../deps";
import { AccountCheck } from "./account-check";
import { HealthChecks } from "./health-checks";
import { Throttle } from "./throttle";

/**
 * The app's runtime: long-lived helpers built once per app from its deps, which handlers read as
 * `c.get("runtime")` beside `c.get("deps")` (what the app was given from outside).
 */
export interface Runtime {
  signer: TokenSigner;
  /** The OPDS feeds' signed cover and download links (README, Reading apps). */
  linkSigner: LinkSigner;
  basicCache: BasicAuthCache;
  /** Device tokens checked in the last minute, apart from shop passwords (services/device-tokens.ts). */
  deviceTokenCache: BasicAuthCache;
  throttle: Throttle;
  accountCheck: AccountCheck;
  /** GET /health's deep checks, shared by every caller of this app. */
  health: HealthChecks;
}

export function createRuntime(deps: Deps): Runtime {
  return {
    signer: new TokenSigner(deps.jwtSecret, deps.config.jwtIssuer),
    linkSigner: new LinkSigner(deps.jwtSecret),
    basicCache: new BasicAuthCache(),
    deviceTokenCache: new BasicAuthCache(),
    throttle: new Throttle(deps.db, deps.config.throttle),
    accountCheck: new AccountCheck(deps),
    // Each probe reads its dependency when it runs: tests swap deps.blobs under a running app.
    health: new HealthChecks(
      {
        database: () => deps.pingDatabase(),
        store: () => deps.store.ping(),
        storage: () => deps.blobs.probeStorage(),
      },
      () => deps.clock.now().getTime(),
    ),
  };
}
