import { defineRoute } from "../../http/define-route";
import { IdParam } from "../../http/openapi";
import { resourceContent } from "../../http/respond";
import { countRoute, listRoute } from "../../http/route-shapes";
import { auditEventSortFields } from "../../repositories/audit-events";
import {
  AuditEventFilterQuery,
  AuditEventList,
  AuditEventResource,
  auditEventFilters,
} from "./audit-events.schemas";

const tags = ["Audit log"];

export const listAuditEvents = listRoute("admin", {
  path: "/audit-event",
  operationId: "listAuditEvents",
  summary: "List the audit log",
  description:
    "Every change an admin, the shop sync or an operator made, newest first unless sorted; the filters combine (all must hold).",
  tags,
  list: AuditEventList,
  sortFields: auditEventSortFields,
  filters: auditEventFilters,
  defaultOrder: "id descending (newest first)",
  returns: "The audit events",
});

export const countAuditEvents = countRoute("admin", {
  path: "/audit-event/count",
  operationId: "countAuditEvents",
  summary: "Count audit events",
  description: "With the filters of listAuditEvents.",
  tags,
  query: AuditEventFilterQuery,
});

export const getAuditEvent = defineRoute("admin", {
  method: "get",
  path: "/audit-event/{id}",
  operationId: "getAuditEvent",
  summary: "Get an audit event",
  tags,
  request: { params: IdParam },
  errors: ["NOT_FOUND"],
  responses: { 200: resourceContent(AuditEventResource, "The audit event") },
});
