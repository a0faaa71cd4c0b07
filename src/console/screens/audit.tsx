// GET /console/audit (README "Console", "Audit log"): the audit log of every change staff or the
// shop made, newest first, filtered by actor (e-mail or uuid), action (exact, or `book.*`), record
// (type and id) and date, one page read (services/audit.ts listAuditEvents, GET /audit-event's own
// filters on their indexes).
import type { Hono } from "hono";
import type { AppBindings } from "../../http/types";
import { type AuditEventFilter, listAuditEvents } from "../../services/audit";
import { Field, type FieldErrors } from "../kit/form";
import { page } from "../kit/layout";
import { DataTable, ListQuery, PAGE_SIZE } from "../kit/table";
import { dateFilter, pageRows, when, windowOf } from "./shared";

const FILTERS = ["actor", "action", "targetType", "targetId", "from", "to"] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ACTION = /^[a-z]+(\.[a-z]+|\.\*)?$/;

function filterOf(query: ListQuery): { filter: AuditEventFilter; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const filter: AuditEventFilter = {};
  const actor = query.filter("actor")?.toLowerCase();
  if (actor !== undefined) {
    if (UUID.test(actor)) filter.actorUuid = actor;
    else filter.actorEmail = actor;
  }
  const action = query.filter("action");
  if (action !== undefined) {
    if (!ACTION.test(action))
      errors.action = "Enter an action such as book.update, or book.* for all of a record's.";
    else if (action.endsWith(".*")) filter.actionPrefix = action.slice(0, -1);
    else filter.action = action;
  }
  const targetType = query.filter("targetType");
  if (targetType !== undefined) filter.targetType = targetType;
  const targetId = query.filter("targetId");
  if (targetId !== undefined) filter.targetId = targetId;
  for (const edge of ["from", "to"] as const) {
    const at = dateFilter(query.filter(edge), edge);
    if (at === "invalid") errors[edge] = "Enter a date (YYYY-MM-DD).";
    else if (at) filter[edge] = at;
  }
  return { filter, errors };
}

/** An event's changes as "field: before → after", one per line. */
function changesText(json: string): string[] {
  try {
    const changes = JSON.parse(json) as Record<string, [unknown, unknown]>;
    return Object.entries(changes).map(
      ([field, [before, after]]) => `${field}: ${JSON.stringify(before)} → ${JSON.stringify(after)}`,
    );
  } catch {
    return [];
  }
}

export function mountAudit(router: Hono<AppBindings>): void {
  router.get("/audit", async (c) => {
    const query = ListQuery.of(c, ["id", "at"] as const, { sort: "id", dir: "desc" }, FILTERS);
    const { filter, errors } = filterOf(query);
    const valid = Object.keys(errors).length === 0;
    const list = valid
      ? pageRows(await listAuditEvents(c.get("deps").db, windowOf(query), filter))
      : undefined;
    const rows = (list?.rows ?? []).map((e) => (
      <tr>
        <td>{when(e.at)}</td>
        <td>
          {e.actorEmail ?? e.actorUuid ?? "—"} <span class="hint">via {e.actorVia}</span>
        </td>
        <td>
          <code>{e.action}</code>
        </td>
        <td>{`${e.targetType} ${e.targetId}`}</td>
        <td>
          <ul class="changes">
            {changesText(e.changes).map((line) => (
              <li>{line}</li>
            ))}
          </ul>
        </td>
      </tr>
    ));
    return page(
      c,
      { title: "Audit log", section: "audit", status: valid ? 200 : 400 },
      <>
        <form method="get" action="/console/audit" class="filters" aria-label="Filter the audit log">
          <Field
            name="actor"
            label="Actor"
            hint="An e-mail address or a uuid."
            value={query.filter("actor")}
          />
          <Field
            name="action"
            label="Action"
            hint="book.update, or book.* for all of a record's."
            value={query.filter("action")}
            error={errors.action}
          />
          <Field
            name="targetType"
            label="Record"
            hint="book, activation, apk, …"
            value={query.filter("targetType")}
          />
          <Field name="targetId" label="Record id" value={query.filter("targetId")} />
          <Field name="from" label="From" type="date" value={query.filter("from")} error={errors.from} />
          <Field name="to" label="To" type="date" value={query.filter("to")} error={errors.to} />
          <button type="submit" class="button">
            Filter
          </button>
        </form>
        {list && (
          <DataTable
            id="audit-events"
            caption="Audit events"
            columns={[
              { label: "When", sort: "at" as const },
              { label: "Actor" },
              { label: "Action" },
              { label: "Record" },
              { label: "Changes" },
            ]}
            query={query}
            rows={rows}
            total={list.total}
            hasNext={(query.page + 1) * PAGE_SIZE < list.total}
            empty="No events match."
          />
        )}
      </>,
    );
  });
}
