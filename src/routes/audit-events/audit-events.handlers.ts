import { listRequestOf, respondCount, respondList, respondResource } from "../../http/respond";
import type { AppRouteHandler } from "../../http/types";
import * as service from "../../services/audit";
import type * as routes from "./audit-events.routes";
import { AuditEventList, AuditEventResource, filterOf, toAuditEvent } from "./audit-events.schemas";

export const listAuditEvents: AppRouteHandler<typeof routes.listAuditEvents> = async (c) => {
  const query = c.req.valid("query");
  const { window, paging } = listRequestOf(query);
  const list = await service.listAuditEvents(c.get("deps").db, window, filterOf(query));
  return respondList(c, AuditEventList, list, toAuditEvent, paging, 200);
};

export const countAuditEvents: AppRouteHandler<typeof routes.countAuditEvents> = async (c) => {
  return respondCount(c, await service.countAuditEvents(c.get("deps").db, filterOf(c.req.valid("query"))));
};

export const getAuditEvent: AppRouteHandler<typeof routes.getAuditEvent> = async (c) => {
  const event = await service.getAuditEvent(c.get("deps").db, c.req.valid("param").id);
  return respondResource(c, AuditEventResource, toAuditEvent(event));
};
