// Lists: the query string holds the whole state of a list (search, filters, sort, page) so every
// list is a bookmarkable URL; a table's sortable headers and the pager are plain links that htmx,
// where it runs, follows in place (the list's region swapped, the URL pushed). A screen reads one
// page of its list from a service (a keyset or counter-backed read), never the whole table.
import type { Child } from "hono/jsx";
import type { ListRead } from "../../lib/list-window";
import type { ConsoleContext } from "./respond";

export const PAGE_SIZE = 25;

/**
 * Every table's box: a table wider than the screen (360 px) keeps its columns and scrolls sideways
 * in here, rather than squeezing its cells to a few letters a line or widening the page. A region
 * (a <section> named as the table), focusable so that a keyboard can scroll it (axe's
 * scrollable-region-focusable).
 */
export function TableScroll(props: { label: string; children: Child }) {
  return (
    <section class="table-scroll" aria-label={props.label} tabindex={0}>
      {props.children}
    </section>
  );
}

/** A paged read's rows and total (a read with a limit is never a stream). */
export function pageRows<Row>(read: ListRead<Row>): { rows: Row[]; total: number } {
  if ("rows" in read) return read;
  throw new Error("a paged read answered with a stream");
}

export type Direction = "asc" | "desc";

/** A list's state from the query string: `page` (0-based), `sort`, `dir`, and its own filters. */
export class ListQuery<S extends string = string> {
  readonly page: number;
  readonly sort: S;
  readonly dir: Direction;
  readonly params: Record<string, string>;

  constructor(
    readonly path: string,
    query: Record<string, string>,
    sortable: readonly S[],
    defaults: { sort: S; dir: Direction },
    filters: readonly string[] = [],
  ) {
    const page = Number(query.page ?? "0");
    this.page = Number.isSafeInteger(page) && page >= 0 && page <= 1_000_000 ? page : 0;
    this.sort = sortable.includes(query.sort as S) ? (query.sort as S) : defaults.sort;
    this.dir = query.dir === "asc" || query.dir === "desc" ? query.dir : defaults.dir;
    this.params = {};
    for (const name of filters) {
      const value = query[name]?.trim();
      if (value) this.params[name] = value.slice(0, 200);
    }
  }

  static of<S extends string>(
    c: ConsoleContext,
    sortable: readonly S[],
    defaults: { sort: S; dir: Direction },
    filters: readonly string[] = [],
  ): ListQuery<S> {
    return new ListQuery(c.req.path, c.req.query(), sortable, defaults, filters);
  }

  filter(name: string): string | undefined {
    return this.params[name];
  }

  /** This list's URL with some of its state changed (a page, a sort); a filter change goes to page 0. */
  href(change: { page?: number; sort?: S; dir?: Direction } = {}): string {
    const search = new URLSearchParams(this.params);
    const sort = change.sort ?? this.sort;
    search.set("sort", sort);
    search.set("dir", change.dir ?? this.dir);
    const page = change.page ?? this.page;
    if (page > 0) search.set("page", String(page));
    return `${this.path}?${search.toString()}`;
  }
}

export interface Column<S extends string> {
  label: string;
  /** The sort field this column's header switches to; none: not sortable. */
  sort?: S;
  /** Right-aligned (numbers). */
  numeric?: boolean;
}

/** htmx's attributes for a link that replaces the list region `target` in place. */
function inPlace(href: string, target: string) {
  return {
    "hx-get": href,
    "hx-target": `#${target}`,
    "hx-select": `#${target}`,
    "hx-swap": "outerHTML",
    "hx-push-url": "true",
  };
}

/**
 * A table in its own region (`id`, what htmx swaps), with a caption, sortable headers (links with
 * `aria-sort` on the current one) and the pager below. `rows`: the page's <tr> elements.
 */
export function DataTable<S extends string>(props: {
  id: string;
  caption: string;
  columns: readonly Column<S>[];
  query: ListQuery<S>;
  rows: Child[];
  hasNext: boolean;
  total?: number | undefined;
  /** `total` is a bound the list holds more than (a bounded count, lib/list-window.ts). */
  more?: boolean | undefined;
  empty?: string;
}) {
  const { id, query } = props;
  return (
    <div id={id} class="list" aria-live="polite">
      <TableScroll label={props.caption}>
        <table>
          <caption>{props.caption}</caption>
          <thead>
            <tr>
              {props.columns.map((column) => {
                const current = column.sort !== undefined && column.sort === query.sort;
                const className = column.numeric ? "numeric" : undefined;
                if (column.sort === undefined) {
                  return (
                    <th scope="col" class={className}>
                      {column.label}
                    </th>
                  );
                }
                const dir: Direction = current && query.dir === "asc" ? "desc" : "asc";
                const href = query.href({ sort: column.sort, dir, page: 0 });
                return (
                  <th
                    scope="col"
                    class={className}
                    aria-sort={current ? (query.dir === "asc" ? "ascending" : "descending") : undefined}
                  >
                    <a href={href} {...inPlace(href, id)}>
                      {column.label}
                      <span class="sort-mark" aria-hidden="true">
                        {current ? (query.dir === "asc" ? " ▲" : " ▼") : ""}
                      </span>
                    </a>
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {props.rows.length > 0 ? (
              props.rows
            ) : (
              <tr>
                <td colspan={props.columns.length}>{props.empty ?? "Nothing here yet."}</td>
              </tr>
            )}
          </tbody>
        </table>
      </TableScroll>
      <Pager id={id} query={query} hasNext={props.hasNext} total={props.total} more={props.more} />
    </div>
  );
}

/** Previous / next links in the query string (`page`), and where the page stands. */
export function Pager<S extends string>(props: {
  id: string;
  query: ListQuery<S>;
  hasNext: boolean;
  total?: number | undefined;
  more?: boolean | undefined;
}) {
  const { query, id } = props;
  const pages =
    props.total === undefined || props.more ? undefined : Math.max(1, Math.ceil(props.total / PAGE_SIZE));
  const previous = query.page > 0 ? query.href({ page: query.page - 1 }) : undefined;
  const next = props.hasNext ? query.href({ page: query.page + 1 }) : undefined;
  return (
    <nav class="pager" aria-label="Pages">
      {previous ? (
        <a href={previous} rel="prev" {...inPlace(previous, id)}>
          Previous page
        </a>
      ) : (
        <span class="disabled">Previous page</span>
      )}
      <span class="page-of">
        {pages === undefined ? `Page ${query.page + 1}` : `Page ${query.page + 1} of ${pages}`}
        {props.total !== undefined &&
          (props.more
            ? ` · more than ${props.total.toLocaleString("en-US")} in all`
            : ` · ${props.total} in all`)}
      </span>
      {next ? (
        <a href={next} rel="next" {...inPlace(next, id)}>
          Next page
        </a>
      ) : (
        <span class="disabled">Next page</span>
      )}
    </nav>
  );
}

/**
 * A search form over a list: GET, so the URL says what was searched. With htmx, typing searches
 * in place (after a pause), the list's region swapped.
 */
export function SearchForm(props: {
  action: string;
  target: string;
  label: string;
  name?: string;
  value?: string | undefined;
  hidden?: Record<string, string>;
  children?: Child;
}) {
  const name = props.name ?? "q";
  return (
    <form
      method="get"
      action={props.action}
      class="search"
      hx-get={props.action}
      hx-target={`#${props.target}`}
      hx-select={`#${props.target}`}
      hx-swap="outerHTML"
      hx-push-url="true"
      hx-trigger="input changed delay:400ms from:find input[type=search], submit"
    >
      <label for={`search-${name}`}>{props.label}</label>
      <input id={`search-${name}`} type="search" name={name} value={props.value ?? ""} />
      {Object.entries(props.hidden ?? {}).map(([n, v]) => (
        <input type="hidden" name={n} value={v} />
      ))}
      {props.children}
      <button type="submit">Search</button>
    </form>
  );
}
