// GET /console/activations (README "Console"): the activations filtered by book, user, source (code,
// shop order, by hand) and date, one page read (services/activations.ts listActivations, on the
// indexes of GET /activation's filters); revoke one after its own confirmation page; and
// /console/activations/new: grant a book to a user by hand (POST /activation's rule).
import type { Hono } from "hono";
import type { AppBindings } from "../../http/types";
import { AppError } from "../../lib/problems";
import {
  ACTIVATION_COUNT_BOUND,
  type ActivationFilter,
  type ActivationSource,
  activationSources,
  createActivation,
  getActivationFor,
  listActivationsPage,
  removeActivation,
} from "../../services/activations";
import { findUserByEmail } from "../../services/users";
import {
  ErrorSummary,
  Field,
  type FieldErrors,
  Form,
  type FormValues,
  readForm,
  Select,
  Submit,
  withFieldErrors,
} from "../kit/form";
import { page } from "../kit/layout";
import { confirmPage } from "../kit/pages";
import { adminOf, auditSourceOf, type ConsoleContext, idParam, redirectTo } from "../kit/respond";
import { ListQuery, PAGE_SIZE } from "../kit/table";
import {
  ActivationsTable,
  BookLink,
  bookTitles,
  dateFilter,
  Facts,
  SOURCE_LABELS,
  UserLink,
  when,
  windowOf,
} from "./shared";

const FILTERS = ["book", "user", "source", "from", "to"] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BOOK_ID = /^[1-9]\d{0,15}$/;

/** The query's filters as the service's, or each wrong one's message beside its field. */
async function filterOf(
  c: ConsoleContext,
  query: ListQuery,
): Promise<{ filter: ActivationFilter; errors: FieldErrors; none: boolean }> {
  const errors: FieldErrors = {};
  const filter: ActivationFilter = {};
  let none = false;
  const book = query.filter("book");
  if (book !== undefined) {
    if (BOOK_ID.test(book)) filter.bookId = Number(book);
    else errors.book = "Enter the book's id (a number).";
  }
  const user = query.filter("user");
  if (user !== undefined) {
    if (UUID.test(user)) filter.userUuid = user.toLowerCase();
    else {
      const { db, store } = c.get("deps");
      const found = await findUserByEmail(db, store, user);
      if (found) filter.userUuid = found.user.uuid;
      else none = true;
    }
  }
  const source = query.filter("source");
  if (source !== undefined) {
    if ((activationSources as readonly string[]).includes(source)) filter.source = source as ActivationSource;
    else errors.source = "Choose a source from the list.";
  }
  for (const edge of ["from", "to"] as const) {
    const at = dateFilter(query.filter(edge), edge);
    if (at === "invalid") errors[edge] = "Enter a date (YYYY-MM-DD).";
    else if (at) filter[edge] = at;
  }
  return { filter, errors, none };
}

function FilterForm(props: { query: ListQuery; errors: FieldErrors }) {
  const { query, errors } = props;
  return (
    <form method="get" action="/console/activations" class="filters" aria-label="Filter the activations">
      <Field
        name="book"
        label="Book"
        hint="The book's id."
        value={query.filter("book")}
        error={errors.book}
      />
      <Field
        name="user"
        label="User"
        hint="An e-mail address or a user's uuid."
        value={query.filter("user")}
        error={errors.user}
      />
      <Select
        name="source"
        label="Source"
        value={query.filter("source") ?? ""}
        error={errors.source}
        options={[
          { value: "", label: "Any source" },
          ...activationSources.map((s) => ({ value: s, label: SOURCE_LABELS[s] })),
        ]}
      />
      <Field name="from" label="From" type="date" value={query.filter("from")} error={errors.from} />
      <Field name="to" label="To" type="date" value={query.filter("to")} error={errors.to} />
      <button type="submit" class="button">
        Filter
      </button>
    </form>
  );
}

const GRANT_LABELS = { book: "Book", email: "E-mail" };

function grantPage(c: ConsoleContext, values: FormValues, errors: FieldErrors = {}, status = 200) {
  return page(
    c,
    { title: "Grant a book by hand", section: "activations", status },
    <>
      <ErrorSummary errors={errors} labels={GRANT_LABELS} />
      <Form action="/console/activations/new" label="Grant a book">
        <Field
          name="book"
          label={GRANT_LABELS.book}
          hint="The book's id, as its page shows it."
          inputmode="numeric"
          value={values.book}
          error={errors.book}
          required
        />
        <Field
          name="email"
          label={GRANT_LABELS.email}
          type="email"
          hint="The reader's e-mail address (or login name) in the store."
          value={values.email}
          error={errors.email}
          required
        />
        <Submit label="Grant" />
      </Form>
    </>,
  );
}

export function mountActivations(router: Hono<AppBindings>): void {
  router.get("/activations", async (c) => {
    const query = ListQuery.of(c, ["createdAt", "id"] as const, { sort: "createdAt", dir: "desc" }, FILTERS);
    const { filter, errors, none } = await filterOf(c, query);
    const { db } = c.get("deps");
    const valid = Object.keys(errors).length === 0;
    const window = { ...windowOf(query), limit: PAGE_SIZE, offset: query.page * PAGE_SIZE };
    const list = valid && !none ? await listActivationsPage(db, window, filter) : undefined;
    const titles = list
      ? await bookTitles(
          db,
          list.rows.map((row) => row.bookId),
        )
      : new Map();
    return page(
      c,
      { title: "Activations", section: "activations", status: valid ? 200 : 400 },
      <>
        <p>
          <a class="button" href="/console/activations/new">
            Grant a book by hand
          </a>
        </p>
        <FilterForm query={query} errors={errors} />
        {none && <p role="status">No user has the e-mail or login {query.filter("user")}.</p>}
        {list?.total.more && window.offset >= ACTIVATION_COUNT_BOUND && (
          <p role="status">
            More than {ACTIVATION_COUNT_BOUND.toLocaleString("en-US")} activations match: narrow the filter (a
            book, a user, a shorter date range) to see past them.
          </p>
        )}
        {list && (
          <ActivationsTable
            id="activations"
            caption="Activations"
            query={query}
            rows={list.rows}
            total={list.total.count}
            more={list.total.more}
            hasNext={list.hasNext}
            titles={titles}
            dateSort="createdAt"
          />
        )}
      </>,
    );
  });

  router.get("/activations/new", (c) =>
    grantPage(c, { book: c.req.query("book") ?? "", email: c.req.query("email") ?? "" }),
  );

  router.post("/activations/new", async (c) => {
    const form = await readForm(c);
    const values = { book: (form.book ?? "").trim(), email: (form.email ?? "").trim() };
    const errors: FieldErrors = {};
    if (!BOOK_ID.test(values.book)) errors.book = "Enter the book's id (a number).";
    if (values.email === "") errors.email = "Enter the reader's e-mail address.";
    const { db, store, clock } = c.get("deps");
    const user = values.email === "" ? undefined : await findUserByEmail(db, store, values.email);
    if (values.email !== "" && !user) errors.email = "No user has this e-mail address in the store.";
    if (Object.keys(errors).length > 0) return grantPage(c, values, errors, 400);
    try {
      const result = await withFieldErrors(["bookId", "userUuid"], () =>
        createActivation(
          db,
          store,
          auditSourceOf(c),
          { bookId: Number(values.book), userUuid: user!.user.uuid },
          clock.now(),
        ),
      );
      if (!result.ok) {
        const { bookId, userUuid, ...rest } = result.errors;
        const mapped: FieldErrors = { ...rest };
        if (bookId) mapped.book = `No book has the id ${values.book}.`;
        if (userUuid) mapped.email = userUuid;
        return grantPage(c, values, mapped, 400);
      }
      return redirectTo(c, `/console/activations?user=${result.value.userUuid}`, "activation-granted");
    } catch (error) {
      if (error instanceof AppError && error.code === "CONFLICT") {
        return grantPage(
          c,
          values,
          {
            email: `${values.email} already holds this book: there is nothing to grant. To give it again, revoke the activation they have first.`,
          },
          409,
        );
      }
      throw error;
    }
  });

  router.get("/activations/:id/revoke", async (c) => {
    const { db } = c.get("deps");
    const activation = await getActivationFor(db, adminOf(c), idParam(c));
    const titles = await bookTitles(db, [activation.bookId]);
    return confirmPage(c, {
      title: "Revoke the activation?",
      section: "activations",
      action: `/console/activations/${activation.id}/revoke`,
      button: "Revoke",
      cancelHref: `/console/activations?user=${activation.userUuid}`,
      children: (
        <>
          <p>
            The user loses the book at once: their apps stop offering it. A code it came from gets its slot
            back.
          </p>
          <Facts
            rows={[
              ["Book", <BookLink id={activation.bookId} title={titles.get(activation.bookId)} />],
              ["User", <UserLink uuid={activation.userUuid} />],
              ["Activated", when(activation.createdAt)],
            ]}
          />
        </>
      ),
    });
  });

  router.post("/activations/:id/revoke", async (c) => {
    const { db, clock } = c.get("deps");
    const removed = await removeActivation(db, auditSourceOf(c), idParam(c), clock.now());
    return redirectTo(c, `/console/activations?user=${removed.userUuid}`, "activation-revoked");
  });
}
