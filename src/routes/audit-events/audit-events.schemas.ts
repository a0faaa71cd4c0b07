import { z } from "@hono/zod-openapi";
import { halList, halResource } from "../../http/hal";
import { requestDateTime, singleLine, Timestamp } from "../../http/openapi";
import { isUuid } from "../../lib/uuid";
import type { AuditEventFilter, AuditEventRow } from "../../services/audit";

const AuditValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const AuditEvent = z
  .object({
    id: z.number().int().openapi({ example: 41 }),
    at: Timestamp,
    actor: z
      .object({
        uuid: z.string().nullable().openapi({ example: "0b6f9f3e-3c1a-4f7e-9a51-2d7c1e0f8a11" }),
        email: z.string().nullable().openapi({ example: "editor@example.com" }),
        via: z.enum(["api", "console", "cli", "shop", "system"]).openapi({ example: "api" }),
      })
      .openapi({
        description: "Who made the change: an admin (uuid, email), the CLI, the shop sync or a job",
      }),
    action: z.string().openapi({ example: "book.update", description: "`<record>.<verb>`" }),
    target: z.object({
      type: z.string().openapi({ example: "book" }),
      id: z.union([z.number().int(), z.string()]).openapi({ example: 7 }),
    }),
    // A pair [before, after], declared as an array of exactly two (not a tuple: OpenAPI 3.1's
    // prefixItems leaves `items` out, which generators and Spectral's array-items rule need).
    changes: z.record(z.string(), z.array(AuditValue).length(2)).openapi({
      description:
        "The fields that changed, `{ field: [before, after] }`; never a password, token, secret or file bytes (a file is named by its sha256 and size)",
      example: { title: ["Old title", "New title"] },
    }),
    requestId: z.string().nullable().openapi({
      description: "The request's X-Request-Id; null outside a request",
      example: "6faa7d6b-2a3c-4d6e-8f00-112233445566",
    }),
    client: z
      .string()
      .nullable()
      .openapi({ description: "The client's address; null outside a request", example: "203.0.113.7" }),
  })
  .openapi("AuditEvent", { description: "One change an admin, the shop sync or an operator made." });

const DIGITS = /^[0-9]+$/;

export function toAuditEvent(row: AuditEventRow): z.infer<typeof AuditEvent> {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actor: { uuid: row.actorUuid, email: row.actorEmail, via: row.actorVia as "api" },
    action: row.action,
    // A record's id is a number; a user's uuid (admin.grant) stays a string.
    target: { type: row.targetType, id: DIGITS.test(row.targetId) ? Number(row.targetId) : row.targetId },
    changes: JSON.parse(row.changes),
    requestId: row.requestId,
    client: row.client,
  };
}

export const AuditEventResource = halResource("AuditEvent", AuditEvent, {
  self: (event) => `/audit-event/${event.id}`,
});

export const AuditEventList = halList("auditEvents", AuditEventResource);

/** `book.create`, or `book.*` for every action on books. */
const ACTION = /^[a-z][a-z0-9-]*\.(?:[a-z][a-z0-9-]*|\*)$/;

/** The filters of GET /audit-event and its count. */
export const auditEventFilters = {
  actor: singleLine()
    .trim()
    .min(1)
    .max(320)
    .optional()
    .openapi({
      param: { name: "actor", in: "query" },
      description: "The actor's uuid or e-mail address (case-insensitive)",
      example: "editor@example.com",
    }),
  action: z
    .string()
    .max(100)
    .regex(ACTION, "must be an action such as book.update, or a prefix such as book.*")
    .optional()
    .openapi({
      param: { name: "action", in: "query" },
      description: "An action (`book.update`), or every action of a record (`book.*`)",
      example: "book.*",
    }),
  targetType: z
    .string()
    .max(40)
    .regex(/^[a-z][a-z0-9-]*$/, "must be a record type such as book")
    .optional()
    .openapi({ param: { name: "targetType", in: "query" }, description: "The record type", example: "book" }),
  targetId: singleLine()
    .min(1)
    .max(64)
    .optional()
    .openapi({
      param: { name: "targetId", in: "query" },
      description: "The record's id (or a user's uuid)",
      example: "7",
    }),
  from: requestDateTime()
    .optional()
    .openapi({
      param: { name: "from", in: "query" },
      description: "Events at or after this instant (RFC 3339)",
      example: "2026-11-01T00:00:00Z",
    }),
  to: requestDateTime()
    .optional()
    .openapi({
      param: { name: "to", in: "query" },
      description: "Events at or before this instant (RFC 3339)",
      example: "2026-11-30T23:59:59Z",
    }),
};

export const AuditEventFilterQuery = z.object(auditEventFilters);

type FilterQuery = { [K in keyof typeof auditEventFilters]?: string | undefined };

/** The repository's filter from the validated query. */
export function filterOf(query: FilterQuery): AuditEventFilter {
  const action = query.action;
  const actor = query.actor?.toLowerCase();
  return {
    // A uuid is never an e-mail address: the actor is one or the other.
    ...(actor !== undefined && isUuid(actor) ? { actorUuid: actor } : { actorEmail: actor }),
    ...(action?.endsWith(".*") ? { actionPrefix: action.slice(0, -1) } : { action }),
    targetType: query.targetType,
    targetId: query.targetId,
    from: query.from === undefined ? undefined : new Date(query.from),
    to: query.to === undefined ? undefined : new Date(query.to),
  };
}
