import { BasicAuthCache } from "../auth/basic-cache";
import { TokenSigner } from "../auth/tokens";
import type { Deps } from "../deps";
import { AccountCheck } from "./account-check";
import { Throttle } from "./throttle";

/** Long-lived helpers built once per app from its deps. */
export interface Services {
  signer: TokenSigner;
  basicCache: BasicAuthCache;
  throttle: Throttle;
  accountCheck: AccountCheck;
}

export function createServices(deps: Deps): Services {
  return {
    signer: new TokenSigner(deps.jwtSecret, deps.config.jwtIssuer),
    basicCache: new BasicAuthCache(),
    throttle: new Throttle(deps.db, deps.config.throttle),
    accountCheck: new AccountCheck(deps),
  };
}
