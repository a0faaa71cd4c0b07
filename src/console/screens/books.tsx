// /console/books, /console/books/new, /console/books/{id} (README "Console"): find, create, edit
// and delete books; the cover (preview, upload); the book's versions (create, upload an archive
// with a progress bar, the EPUB's metadata), its print runs, activation count and shop products.
// Inputs go through the API's own schemas (BookInput, BookVersionInput), so the rules and the
// messages are the API's.
import type { Hono } from "hono";
import type { z } from "zod";
import { receiveFile } from "../../http/file-upload";
import { sendStoredFile } from "../../http/stored-file";
import type { AppBindings } from "../../http/types";
import { AppError } from "../../lib/problems";
import { BookVersionInput } from "../../routes/book-versions/book-versions.schemas";
import { BookInput } from "../../routes/books/books.schemas";
import { countActivationsOfBook } from "../../services/activations";
import { archiveEpub, archiveFormat } from "../../services/archive-format";
import { createBookVersion, getBookVersion, listVersionsOfBook } from "../../services/book-versions";
import {
  createBook,
  getBook,
  listBooks,
  removeBook,
  replaceBook,
  searchBooksByTitle,
} from "../../services/books";
import { attachArchive, attachCover } from "../../services/files";
import { listQrCodeBatchesOfBook } from "../../services/qr-code-batches";
import { listShopProductsOfBook } from "../../services/shop-products";
import {
  ErrorSummary,
  Field,
  type FieldErrors,
  FileField,
  Form,
  type FormValues,
  parseForm,
  readForm,
  Submit,
  TextArea,
} from "../kit/form";
import { page } from "../kit/layout";
import { confirmPage } from "../kit/pages";
import { auditSourceOf, type ConsoleContext, idParam, redirectTo } from "../kit/respond";
import { DataTable, ListQuery, PAGE_SIZE, pageRows, SearchForm, TableScroll } from "../kit/table";

type BookRow = Awaited<ReturnType<typeof getBook>>;

const BOOK_LABELS = {
  title: "Title",
  author: "Author",
  isbn: "ISBN",
  language: "Language",
  description: "Description",
};
const VERSION_LABELS = {
  versionCode: "Version code",
  versionName: "Version name",
  releaseNotes: "Release notes",
};
const SORTS = ["id", "title", "author", "createdAt", "updatedAt"] as const;

const when = (at: Date | null | undefined) => (at ? at.toISOString().replace("T", " ").slice(0, 16) : "—");
export const bytes = (n: number | null | undefined) =>
  n === null || n === undefined
    ? "—"
    : n < 1024 * 1024
      ? `${Math.ceil(n / 1024)} KiB`
      : `${(n / 1024 / 1024).toFixed(1)} MiB`;

function valuesOf(book: BookRow): FormValues {
  return {
    title: book.title,
    author: book.author ?? "",
    isbn: book.isbn ?? "",
    language: book.language ?? "",
    description: book.description ?? "",
  };
}

function BookFields(props: { values: FormValues; errors: FieldErrors }) {
  const { values, errors } = props;
  return (
    <>
      <Field
        name="title"
        label={BOOK_LABELS.title}
        value={values.title}
        error={errors.title}
        required
        maxlength={300}
      />
      <Field
        name="author"
        label={BOOK_LABELS.author}
        value={values.author}
        error={errors.author}
        maxlength={300}
      />
      <Field
        name="isbn"
        label={BOOK_LABELS.isbn}
        value={values.isbn}
        error={errors.isbn}
        hint="ISBN-10 or ISBN-13; hyphens and spaces are fine"
      />
      <Field
        name="language"
        label={BOOK_LABELS.language}
        value={values.language}
        error={errors.language}
        hint="A language tag such as en, de or en-GB"
        maxlength={35}
      />
      <TextArea
        name="description"
        label={BOOK_LABELS.description}
        value={values.description}
        error={errors.description}
        rows={5}
        maxlength={10000}
      />
    </>
  );
}

type BookInputValue = z.output<typeof BookInput>;
const fieldsOf = (input: BookInputValue) => ({
  title: input.title,
  author: input.author ?? null,
  isbn: input.isbn ?? null,
  description: input.description ?? null,
  language: input.language ?? null,
});

function newBookPage(c: ConsoleContext, values: FormValues = {}, errors: FieldErrors = {}, status = 200) {
  return page(
    c,
    { title: "New book", section: "books", status },
    <>
      <ErrorSummary errors={errors} labels={BOOK_LABELS} />
      <Form action="/console/books/new" label="New book">
        <BookFields values={values} errors={errors} />
        <Submit label="Create book" />
      </Form>
    </>,
  );
}

interface BookPageState {
  values?: FormValues;
  errors?: FieldErrors;
  coverError?: string;
  version?: { values: FormValues; errors: FieldErrors };
  archiveError?: { versionId: number; message: string };
  status?: number;
}

async function bookPage(c: ConsoleContext, book: BookRow, state: BookPageState = {}) {
  const { db } = c.get("deps");
  const [versions, batches, activations, products] = await Promise.all([
    listVersionsOfBook(db, book.id, { sort: [{ field: "versionCode", direction: "desc" }], limit: 50 }),
    listQrCodeBatchesOfBook(db, book.id, { sort: [{ field: "id", direction: "desc" }], limit: 10 }),
    countActivationsOfBook(db, book.id),
    listShopProductsOfBook(db, book.id, { sort: [{ field: "id", direction: "asc" }], limit: 20 }),
  ]);
  const errors = state.errors ?? {};
  const versionForm = state.version ?? { values: {}, errors: {} };
  const versionRows = pageRows(versions);
  const batchRows = pageRows(batches);
  const productRows = pageRows(products);
  return page(
    c,
    { title: book.title, section: "books", status: state.status ?? 200 },
    <>
      <p>
        <a href="/console/books">All books</a> · Book {book.id} · {activations} activation
        {activations === 1 ? "" : "s"} (<a href={`/console/activations?book=${book.id}`}>see them</a>)
      </p>
      <section aria-labelledby="edit-book">
        <h2 id="edit-book">Details</h2>
        <ErrorSummary errors={errors} labels={BOOK_LABELS} />
        <Form action={`/console/books/${book.id}`} label="Edit book">
          <BookFields values={state.values ?? valuesOf(book)} errors={errors} />
          <div class="actions">
            <Submit label="Save" />
            <a class="button secondary" href={`/console/books/${book.id}/delete`}>
              Delete this book
            </a>
          </div>
        </Form>
      </section>
      <section aria-labelledby="cover">
        <h2 id="cover">Cover</h2>
        {book.coverSha256 ? (
          <img
            class="cover-preview"
            src={`/console/books/${book.id}/cover?v=${book.coverSha256.slice(0, 12)}`}
            alt={`Cover of ${book.title}`}
            width={book.coverWidth ?? undefined}
            height={book.coverHeight ?? undefined}
          />
        ) : (
          <p>No cover yet.</p>
        )}
        <Form action={`/console/books/${book.id}/cover`} upload label="Upload cover">
          <FileField
            name="file"
            label="Cover"
            accept="image/png"
            hint="A PNG image"
            error={state.coverError}
            required
          />
          <img class="cover-preview" data-preview-for="field-file" alt="Preview of the chosen cover" hidden />
          <Submit label="Upload cover" />
        </Form>
      </section>
      <section aria-labelledby="versions">
        <h2 id="versions">Versions</h2>
        <TableScroll label="Versions of this book, newest first">
          <table>
            <caption>Versions of this book, newest first</caption>
            <thead>
              <tr>
                <th scope="col" class="numeric">
                  Version code
                </th>
                <th scope="col">Version name</th>
                <th scope="col">Archive</th>
                <th scope="col">Upload an archive</th>
              </tr>
            </thead>
            <tbody>
              {versionRows.rows.length === 0 && (
                <tr>
                  <td colspan={4}>No versions yet.</td>
                </tr>
              )}
              {versionRows.rows.map((version) => {
                const epub = version.archiveSha256 ? archiveEpub(version) : null;
                const failed =
                  state.archiveError?.versionId === version.id ? state.archiveError.message : undefined;
                return (
                  <tr>
                    <td class="numeric">{String(version.versionCode)}</td>
                    <td>{version.versionName}</td>
                    <td>
                      {version.archiveSha256 ? (
                        <>
                          {`${version.archiveFilename ?? "archive"} · ${bytes(version.archiveSize)} · ${archiveFormat(version)} · uploaded ${when(version.archiveUploadedAt)}`}
                          {epub && (
                            <dl class="facts">
                              <dt>EPUB title</dt>
                              <dd>{epub.title}</dd>
                              <dt>Creators</dt>
                              <dd>{epub.creators.join(", ") || "—"}</dd>
                              <dt>Language</dt>
                              <dd>{epub.language || "—"}</dd>
                              <dt>Identifier</dt>
                              <dd>{epub.identifier || "—"}</dd>
                            </dl>
                          )}
                        </>
                      ) : (
                        "none yet"
                      )}
                    </td>
                    <td>
                      <Form
                        action={`/console/books/${book.id}/versions/${version.id}/archive`}
                        upload
                        label={`Upload archive of version ${version.versionCode}`}
                      >
                        <FileField
                          name="file"
                          label="Archive"
                          accept=".epub,.zip,application/epub+zip,application/zip"
                          error={failed}
                          required
                        />
                        <Submit label="Upload archive" />
                      </Form>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableScroll>
        <h3>New version</h3>
        <ErrorSummary errors={versionForm.errors} labels={VERSION_LABELS} />
        <Form action={`/console/books/${book.id}/versions`} label="New version">
          <Field
            name="versionCode"
            label={VERSION_LABELS.versionCode}
            type="number"
            min={1}
            inputmode="numeric"
            value={versionForm.values.versionCode}
            error={versionForm.errors.versionCode}
            required
          />
          <Field
            name="versionName"
            label={VERSION_LABELS.versionName}
            value={versionForm.values.versionName}
            error={versionForm.errors.versionName}
            maxlength={64}
            required
          />
          <TextArea
            name="releaseNotes"
            label={VERSION_LABELS.releaseNotes}
            value={versionForm.values.releaseNotes}
            error={versionForm.errors.releaseNotes}
            rows={3}
          />
          <Submit label="Create version" />
        </Form>
      </section>
      <section aria-labelledby="print-runs">
        <h2 id="print-runs">Print runs</h2>
        <p>
          <a class="button" href={`/console/books/${book.id}/print-runs/new`}>
            New print run
          </a>
        </p>
        {batchRows.rows.length === 0 ? (
          <p>No print runs yet.</p>
        ) : (
          <ul>
            {batchRows.rows.map((batch) => (
              <li>
                <a
                  href={`/console/print-runs/${batch.id}`}
                >{`Print run ${batch.id}${batch.label ? ` “${batch.label}”` : ""}`}</a>
                {` · ${batch.codes} codes, ${batch.redeemed} redeemed, ${batch.unused} unused`}
              </li>
            ))}
          </ul>
        )}
        {batchRows.total > batchRows.rows.length && (
          <p>
            <a
              href={`/console/print-runs?bookId=${book.id}`}
            >{`All ${batchRows.total} print runs of this book`}</a>
          </p>
        )}
      </section>
      <section aria-labelledby="shop-products">
        <h2 id="shop-products">Shop products</h2>
        {productRows.rows.length === 0 ? (
          <p>No shop product grants this book.</p>
        ) : (
          <ul>
            {productRows.rows.map((product) => (
              <li>{`Product ${product.productId}${product.variationId === null ? " (any variation)" : `, variation ${product.variationId}`}`}</li>
            ))}
          </ul>
        )}
        <p>
          <a href="/console/shop">Map products in the shop screen</a>
        </p>
      </section>
    </>,
  );
}

/** An upload's failure that the admin can act on (415, 413, 409, 400), or undefined. */
function uploadProblem(error: unknown): AppError | undefined {
  return error instanceof AppError && error.status < 500 && error.code !== "NOT_FOUND" ? error : undefined;
}

export function mountBooks(router: Hono<AppBindings>): void {
  router.get("/books", async (c) => {
    const { db } = c.get("deps");
    const query = ListQuery.of(c, SORTS, { sort: "id", dir: "desc" }, ["q"]);
    const q = query.filter("q");
    let rows: BookRow[];
    let total: number | undefined;
    let hasNext: boolean;
    if (q !== undefined && /^\d{1,15}$/.test(q)) {
      // A number is a book's id.
      const book = await getBook(db, Number(q)).catch(() => undefined);
      rows = book ? [book] : [];
      hasNext = false;
    } else if (q !== undefined) {
      const found = await searchBooksByTitle(db, q, PAGE_SIZE + 1, query.page * PAGE_SIZE);
      hasNext = found.length > PAGE_SIZE;
      rows = found.slice(0, PAGE_SIZE);
    } else {
      const read = pageRows(
        await listBooks(db, {
          sort: [{ field: query.sort, direction: query.dir }],
          limit: PAGE_SIZE,
          offset: query.page * PAGE_SIZE,
        }),
      );
      rows = read.rows;
      total = read.total;
      hasNext = (query.page + 1) * PAGE_SIZE < read.total;
    }
    return page(
      c,
      { title: "Books", section: "books" },
      <>
        <p>
          <a class="button" href="/console/books/new">
            New book
          </a>
        </p>
        <SearchForm
          action="/console/books"
          target="book-list"
          label="Find a book by the start of its title, or by its id"
          value={q}
        />
        <DataTable
          id="book-list"
          caption={q ? `Books matching “${q}”` : "Books"}
          query={query}
          columns={[
            { label: "Id", sort: "id", numeric: true },
            { label: "Title", sort: "title" },
            { label: "Author", sort: "author" },
            { label: "ISBN" },
            { label: "Created", sort: "createdAt" },
          ]}
          hasNext={hasNext}
          total={total}
          empty={q ? "No book matches." : "No books yet."}
          rows={rows.map((book) => (
            <tr>
              <td class="numeric">{String(book.id)}</td>
              <td>
                <a href={`/console/books/${book.id}`}>{book.title}</a>
              </td>
              <td>{book.author ?? "—"}</td>
              <td>{book.isbn ?? "—"}</td>
              <td>{when(book.createdAt)}</td>
            </tr>
          ))}
        />
      </>,
    );
  });

  router.get("/books/new", (c) => newBookPage(c));

  router.post("/books/new", async (c) => {
    const values = await readForm(c);
    const parsed = parseForm(BookInput, values);
    if (!parsed.ok) return newBookPage(c, values, parsed.errors, 400);
    const { db, clock } = c.get("deps");
    const book = await createBook(db, auditSourceOf(c), fieldsOf(parsed.data), clock.now());
    return redirectTo(c, `/console/books/${book.id}`, "book-created");
  });

  router.get("/books/:id", async (c) => bookPage(c, await getBook(c.get("deps").db, idParam(c))));

  router.post("/books/:id", async (c) => {
    const { db, clock } = c.get("deps");
    const book = await getBook(db, idParam(c));
    const values = await readForm(c);
    const parsed = parseForm(BookInput, values);
    if (!parsed.ok) return bookPage(c, book, { values, errors: parsed.errors, status: 400 });
    await replaceBook(db, auditSourceOf(c), book.id, fieldsOf(parsed.data), clock.now());
    return redirectTo(c, `/console/books/${book.id}`, "book-saved");
  });

  router.get("/books/:id/delete", async (c) => {
    const book = await getBook(c.get("deps").db, idParam(c));
    return confirmPage(c, {
      title: `Delete “${book.title}”?`,
      section: "books",
      action: `/console/books/${book.id}/delete`,
      button: "Delete",
      cancelHref: `/console/books/${book.id}`,
      children: (
        <p>
          The book, its versions, their archives and its print runs' codes are deleted. This cannot be undone.
          A book that readers hold cannot be deleted.
        </p>
      ),
    });
  });

  router.post("/books/:id/delete", async (c) => {
    const { db, clock } = c.get("deps");
    const book = await getBook(db, idParam(c));
    try {
      await removeBook(db, auditSourceOf(c), book.id, clock.now());
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== "CONFLICT") throw error;
      const held = await countActivationsOfBook(db, book.id);
      return page(
        c,
        { title: `“${book.title}” was not deleted`, section: "books", status: 409 },
        <>
          <p>
            {`${held} reader${held === 1 ? " holds" : "s hold"} this book. Revoke their activations first (they lose the book), then delete it.`}
          </p>
          <p>
            <a href={`/console/activations?book=${book.id}`}>See the book's activations</a> ·{" "}
            <a href={`/console/books/${book.id}`}>Back to the book</a>
          </p>
        </>,
      );
    }
    return redirectTo(c, "/console/books", "book-deleted");
  });

  // The preview's bytes from the console's own origin: its CSP admits no other for images, and
  // /book/{id}/cover may redirect to the bucket (S3_DOWNLOADS=redirect). Streamed, never buffered.
  router.get("/books/:id/cover", async (c) => {
    const book = await getBook(c.get("deps").db, idParam(c));
    const cover = { sha256: book.coverSha256, size: book.coverSize, uploadedAt: book.coverUpdatedAt };
    return sendStoredFile(c, `The cover of book ${book.id}`, cover, {
      contentType: "image/png",
      disposition: "inline",
      cacheControl: "no-store",
      delivery: "app",
    });
  });

  router.post("/books/:id/cover", async (c) => {
    const { db, clock, blobs } = c.get("deps");
    const book = await getBook(db, idParam(c));
    try {
      const file = await receiveFile(c, "cover");
      await attachCover(db, auditSourceOf(c), book.id, file, clock.now(), blobs);
    } catch (error) {
      const problem = uploadProblem(error);
      if (!problem) throw error;
      return bookPage(c, book, { coverError: problem.message, status: problem.status });
    }
    return redirectTo(c, `/console/books/${book.id}#cover`, "cover-uploaded");
  });

  router.post("/books/:id/versions", async (c) => {
    const { db, clock } = c.get("deps");
    const book = await getBook(db, idParam(c));
    const values = await readForm(c);
    const parsed = parseForm(BookVersionInput, values, {
      numbers: ["versionCode"],
      extra: { bookId: book.id },
    });
    if (!parsed.ok) return bookPage(c, book, { version: { values, errors: parsed.errors }, status: 400 });
    try {
      await createBookVersion(db, auditSourceOf(c), parsed.data, clock.now());
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== "CONFLICT") throw error;
      const message = `Version code ${parsed.data.versionCode} is taken by another version of this book; choose a higher one.`;
      return bookPage(c, book, { version: { values, errors: { versionCode: message } }, status: 409 });
    }
    return redirectTo(c, `/console/books/${book.id}#versions`, "version-created");
  });

  router.post("/books/:id/versions/:versionId/archive", async (c) => {
    const { db, clock, blobs } = c.get("deps");
    const book = await getBook(db, idParam(c));
    const version = await getBookVersion(db, idParam(c, "versionId"));
    if (version.bookId !== book.id) throw new AppError("NOT_FOUND", "No such version of this book.");
    try {
      const file = await receiveFile(c, "archive");
      await attachArchive(db, auditSourceOf(c), version.id, file, clock.now(), blobs);
    } catch (error) {
      const problem = uploadProblem(error);
      if (!problem) throw error;
      return bookPage(c, book, {
        archiveError: { versionId: version.id, message: problem.message },
        status: problem.status,
      });
    }
    return redirectTo(c, `/console/books/${book.id}#versions`, "archive-uploaded");
  });
}
