// Who a request's change is recorded as (README "Audit log"): the principal the access middleware
// set, with the request's id and its client's address.
import type { Context } from "hono";
import { type AuditSource, apiSource } from "../services/audit";
import { clientAddressOf } from "./client-address";
import type { AppBindings } from "./types";

export function auditSourceOf(c: Context<AppBindings>): AuditSource {
  return apiSource(c.get("principal"), c.get("requestId"), clientAddressOf(c));
}
