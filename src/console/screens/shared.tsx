// What the codes, activations, users, APK, shop and audit screens share: times as staff read them,
// a record's facts as a description list, links to a book and a user, the date filters of a list
// (README "Console": `from`/`to` in the query string), and the activations table they all show.
import type { Child } from "hono/jsx";
import type { ListRead, ListWindow } from "../../lib/list-window";
import type { ActivationSource } from "../../services/activations";
import { getBook } from "../../services/books";
import { type Column, DataTable, type ListQuery, PAGE_SIZE } from "../kit/table";

/** The window of a list query's page, sorted by `field` in its direction. */
export function windowOf<S extends string>(query: ListQuery<S>): ListWindow<S> {
  return {
    sort: [{ field: query.sort, direction: query.dir }],
    limit: PAGE_SIZE,
    offset: query.page * PAGE_SIZE,
  };
}

/** A page's rows and total from a service's list read (a window with a limit is always a page). */
export function pageRows<Row>(read: ListRead<Row>): { rows: Row[]; total: number } {
  if ("rows" in read) return read;
  throw new Error("a paged list read answered a stream");
}

/** The titles of a page's books (at most a page of look-ups by id); a deleted book has none. */
export async function bookTitles(
  db: Parameters<typeof getBook>[0],
  ids: Iterable<number>,
): Promise<Map<number, string>> {
  const titles = new Map<number, string>();
  await Promise.all(
    [...new Set(ids)].map(async (id) => {
      const book = await getBook(db, id).catch(() => undefined);
      if (book) titles.set(id, book.title);
    }),
  );
  return titles;
}

/** A time in UTC, to the minute: "2026-12-02 01:24 UTC"; "—" for none. */
export function when(at: Date | null | undefined): string {
  if (!at) return "—";
  return `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** A record's facts: label → value. */
export function Facts(props: { rows: [string, Child][] }) {
  return (
    <dl class="facts">
      {props.rows.map(([label, value]) => (
        <>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </>
      ))}
    </dl>
  );
}

export function BookLink(props: { id: number; title?: string | undefined }) {
  return <a href={`/console/books/${props.id}`}>{props.title ?? `Book ${props.id}`}</a>;
}

export function UserLink(props: { uuid: string; email?: string | undefined }) {
  return <a href={`/console/users/${props.uuid}`}>{props.email ?? props.uuid}</a>;
}

/**
 * A date filter's value (`YYYY-MM-DD` from a date input, or RFC 3339) as the start (`from`) or the
 * end (`to`, the whole day) of a range; undefined for none, "invalid" for text that is no date.
 */
export function dateFilter(text: string | undefined, edge: "from" | "to"): Date | undefined | "invalid" {
  if (text === undefined || text === "") return undefined;
  const day = /^\d{4}-\d{2}-\d{2}$/.test(text);
  const at = new Date(day ? `${text}T${edge === "from" ? "00:00:00.000" : "23:59:59.999"}Z` : text);
  return Number.isNaN(at.getTime()) ? "invalid" : at;
}

export const SOURCE_LABELS: Record<ActivationSource, string> = {
  code: "Code",
  order: "Shop order",
  manual: "By hand",
};

/** An activation's source, as its row records it (repositories/activations.ts sourceOf). */
export function sourceOf(row: { qrCodeId: number | null; shopOrderId: number | null }): ActivationSource {
  return row.qrCodeId !== null ? "code" : row.shopOrderId !== null ? "order" : "manual";
}

export interface ActivationLine {
  id: number;
  bookId: number;
  userUuid: string;
  qrCodeId: number | null;
  shopOrderId: number | null;
  createdAt: Date;
}

/** A page of activations with their source and a Revoke link (to its confirmation page). */
export function ActivationsTable<S extends string>(props: {
  id: string;
  caption: string;
  query: ListQuery<S>;
  rows: ActivationLine[];
  total: number;
  /** A bounded count (services/activations.ts listActivationsPage): `total` is its bound, and more follow. */
  more?: boolean;
  /** Whether a next page has rows; default: the total says so. */
  hasNext?: boolean;
  titles?: Map<number, string>;
  dateSort?: S;
}) {
  const columns: Column<S>[] = [
    { label: "Id", numeric: true },
    { label: "Book" },
    { label: "User" },
    { label: "Source" },
    { label: "Activated", ...(props.dateSort ? { sort: props.dateSort } : {}) },
    { label: "Actions" },
  ];
  const rows = props.rows.map((a) => (
    <tr>
      <td class="numeric">{a.id}</td>
      <td>
        <BookLink id={a.bookId} title={props.titles?.get(a.bookId)} />
      </td>
      <td>
        <UserLink uuid={a.userUuid} />
      </td>
      <td>
        {SOURCE_LABELS[sourceOf(a)]}
        {a.shopOrderId !== null && (
          <>
            {" "}
            (<a href={`/console/shop?order=${a.shopOrderId}`}>order {a.shopOrderId}</a>)
          </>
        )}
      </td>
      <td>{when(a.createdAt)}</td>
      <td>
        <a href={`/console/activations/${a.id}/revoke`}>Revoke</a>
      </td>
    </tr>
  ));
  return (
    <DataTable
      id={props.id}
      caption={props.caption}
      columns={columns}
      query={props.query}
      rows={rows}
      total={props.total}
      more={props.more}
      hasNext={props.hasNext ?? (props.query.page + 1) * PAGE_SIZE < props.total}
      empty="No activations."
    />
  );
}
