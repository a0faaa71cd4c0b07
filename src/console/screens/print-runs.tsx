// /console/print-runs, /console/books/{id}/print-runs/new, /console/print-runs/{id} (README
// "Console"): make a print run, download its CSV and its PDF sheet (paper and layout chosen),
// enable or disable it (disabling asks first), see what was redeemed. Inputs go through the API's
// own schemas (QrCodeBatchInput, SheetQuery).
import type { Hono } from "hono";
import { contentDisposition } from "../../http/file-response";
import { markStreamedBody } from "../../http/streamed-body";
import type { AppBindings } from "../../http/types";
import { SheetQuery } from "../../routes/qr-code-batches/qr-code-batches.schemas";
import { QrCodeBatchInput } from "../../routes/qr-codes/qr-codes.schemas";
import { getBook } from "../../services/books";
import {
  batchCsvFile,
  batchSheet,
  getQrCodeBatch,
  listQrCodeBatchesPage,
  setQrCodeBatchEnabled,
} from "../../services/qr-code-batches";
import { createQrCodeBatch } from "../../services/qr-codes";
import {
  ErrorSummary,
  Field,
  type FieldErrors,
  Form,
  type FormValues,
  parseForm,
  readForm,
  Select,
  Submit,
} from "../kit/form";
import { page } from "../kit/layout";
import { confirmPage } from "../kit/pages";
import { auditSourceOf, type ConsoleContext, idParam, redirectTo } from "../kit/respond";
import { DataTable, ListQuery, PAGE_SIZE } from "../kit/table";

const LABELS = {
  quantity: "Quantity",
  maxActivations: "Activations per code",
  label: "Label",
  expiresAt: "Expires",
};
const when = (at: Date | null | undefined) =>
  at ? at.toISOString().replace("T", " ").slice(0, 16) : "never";

type Book = Awaited<ReturnType<typeof getBook>>;

function newRunPage(
  c: ConsoleContext,
  book: Book,
  values: FormValues = {},
  errors: FieldErrors = {},
  status = 200,
) {
  return page(
    c,
    { title: `New print run of “${book.title}”`, section: "print-runs", status },
    <>
      <p>
        <a href={`/console/books/${book.id}`}>Back to the book</a>
      </p>
      <ErrorSummary errors={errors} labels={LABELS} />
      <Form action={`/console/books/${book.id}/print-runs/new`} label="New print run">
        <Field
          name="quantity"
          label={LABELS.quantity}
          type="number"
          min={1}
          max={10000}
          inputmode="numeric"
          value={values.quantity}
          error={errors.quantity}
          hint="How many codes to print, 1 to 10,000"
          required
        />
        <Field
          name="maxActivations"
          label={LABELS.maxActivations}
          type="number"
          min={1}
          inputmode="numeric"
          value={values.maxActivations ?? "1"}
          error={errors.maxActivations}
          hint="How many readers one code can activate"
        />
        <Field
          name="label"
          label={LABELS.label}
          value={values.label}
          error={errors.label}
          maxlength={200}
          hint="e.g. First print, 2026"
        />
        <Field
          name="expiresAt"
          label={LABELS.expiresAt}
          type="date"
          value={values.expiresAt}
          error={errors.expiresAt}
          hint="Leave empty for codes that never expire; they expire at the end of this day (UTC)"
        />
        <Submit label="Make print run" />
      </Form>
    </>,
  );
}

export function mountPrintRuns(router: Hono<AppBindings>): void {
  router.get("/print-runs", async (c) => {
    const { db } = c.get("deps");
    const query = ListQuery.of(c, ["id"] as const, { sort: "id", dir: "desc" }, ["bookId"]);
    const bookFilter = query.filter("bookId");
    const bookId = bookFilter && /^\d{1,15}$/.test(bookFilter) ? Number(bookFilter) : undefined;
    const found = await listQrCodeBatchesPage(db, PAGE_SIZE + 1, query.page * PAGE_SIZE, bookId);
    const rows = found.slice(0, PAGE_SIZE);
    return page(
      c,
      { title: "Print runs", section: "print-runs" },
      <>
        <p>A print run is made from its book's page (Books → a book → New print run).</p>
        <DataTable
          id="print-run-list"
          caption={bookId ? `Print runs of book ${bookId}, newest first` : "Print runs, newest first"}
          query={query}
          columns={[
            { label: "Print run", numeric: true },
            { label: "Book", numeric: true },
            { label: "Label" },
            { label: "Codes", numeric: true },
            { label: "Redeemed", numeric: true },
            { label: "Unused", numeric: true },
            { label: "Disabled", numeric: true },
            { label: "Made" },
          ]}
          hasNext={found.length > PAGE_SIZE}
          empty="No print runs yet."
          rows={rows.map((batch) => (
            <tr>
              <td class="numeric">
                <a href={`/console/print-runs/${batch.id}`}>{String(batch.id)}</a>
              </td>
              <td class="numeric">
                <a href={`/console/books/${batch.bookId}`}>{String(batch.bookId)}</a>
              </td>
              <td>{batch.label ?? "—"}</td>
              <td class="numeric">{String(batch.codes)}</td>
              <td class="numeric">{String(batch.redeemed)}</td>
              <td class="numeric">{String(batch.unused)}</td>
              <td class="numeric">{String(batch.disabled)}</td>
              <td>{when(batch.createdAt)}</td>
            </tr>
          ))}
        />
      </>,
    );
  });

  router.get("/books/:id/print-runs/new", async (c) =>
    newRunPage(c, await getBook(c.get("deps").db, idParam(c))),
  );

  router.post("/books/:id/print-runs/new", async (c) => {
    const { db, clock } = c.get("deps");
    const book = await getBook(db, idParam(c));
    const values = await readForm(c);
    // A date field gives YYYY-MM-DD: the codes expire at the end of that day, UTC.
    const form = { ...values };
    if (form.expiresAt && /^\d{4}-\d{2}-\d{2}$/.test(form.expiresAt))
      form.expiresAt = `${form.expiresAt}T23:59:59.999Z`;
    const parsed = parseForm(QrCodeBatchInput, form, {
      numbers: ["quantity", "maxActivations"],
      extra: { bookId: book.id },
    });
    if (!parsed.ok) return newRunPage(c, book, values, parsed.errors, 400);
    const input = parsed.data;
    const codes = await createQrCodeBatch(
      db,
      auditSourceOf(c),
      {
        bookId: book.id,
        quantity: input.quantity,
        maxActivations: input.maxActivations,
        label: input.label ?? null,
        expiresAt: input.expiresAt,
      },
      clock.now(),
    );
    return redirectTo(c, `/console/print-runs/${codes[0]?.batchId ?? ""}`, "print-run-created");
  });

  router.get("/print-runs/:id", async (c) => {
    const { db } = c.get("deps");
    const batch = await getQrCodeBatch(db, idParam(c));
    const book = await getBook(db, batch.bookId);
    const allDisabled = batch.codes > 0 && batch.disabled === batch.codes;
    return page(
      c,
      { title: `Print run ${batch.id}${batch.label ? ` “${batch.label}”` : ""}`, section: "print-runs" },
      <>
        <dl class="facts">
          <dt>Book</dt>
          <dd>
            <a href={`/console/books/${book.id}`}>{book.title}</a>
          </dd>
          <dt>Codes</dt>
          <dd>{String(batch.codes)}</dd>
          <dt>Redeemed</dt>
          <dd>{String(batch.redeemed)}</dd>
          <dt>Unused</dt>
          <dd>{String(batch.unused)}</dd>
          <dt>Disabled</dt>
          <dd>{String(batch.disabled)}</dd>
          <dt>Activations per code</dt>
          <dd>{String(batch.maxActivations)}</dd>
          <dt>Expires</dt>
          <dd>{when(batch.expiresAt)}</dd>
          <dt>Made</dt>
          <dd>{when(batch.createdAt)}</dd>
        </dl>
        <h2>Download</h2>
        <p>
          <a class="button" href={`/console/print-runs/${batch.id}/codes.csv`} download>
            Download the codes (CSV)
          </a>
        </p>
        <form
          method="get"
          action={`/console/print-runs/${batch.id}/sheet.pdf`}
          aria-label="Download the PDF sheet"
        >
          <Select
            name="paper"
            label="Paper"
            value="A4"
            options={[
              { value: "A4", label: "A4" },
              { value: "Letter", label: "Letter" },
            ]}
          />
          <Field name="columns" label="Columns" type="number" min={1} inputmode="numeric" value="4" />
          <Field name="rows" label="Rows" type="number" min={1} inputmode="numeric" value="6" />
          <Field
            name="symbolMm"
            label="Symbol size (mm)"
            type="number"
            min={15}
            inputmode="numeric"
            value="30"
          />
          <button type="submit">Download the PDF sheet</button>
        </form>
        <h2>Enable or disable</h2>
        <div class="actions">
          {batch.disabled > 0 && (
            <Form action={`/console/print-runs/${batch.id}/enable`} class="inline-form">
              <Submit label="Enable every code" />
            </Form>
          )}
          {!allDisabled && (
            <a class="button danger" href={`/console/print-runs/${batch.id}/disable`}>
              Disable every code…
            </a>
          )}
        </div>
      </>,
    );
  });

  router.get("/print-runs/:id/codes.csv", async (c) => {
    const { db, clock } = c.get("deps");
    const csv = await batchCsvFile(db, idParam(c), clock.now());
    return markStreamedBody(
      c.body(csv.stream, 200, {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": contentDisposition("attachment", csv.filename),
      }),
    );
  });

  router.get("/print-runs/:id/sheet.pdf", async (c) => {
    const { db, config } = c.get("deps");
    const id = idParam(c);
    const parsed = parseForm(SheetQuery, c.req.query(), { numbers: ["columns", "rows", "symbolMm"] });
    if (!parsed.ok) {
      await getQrCodeBatch(db, id);
      return page(
        c,
        { title: "The sheet cannot be made", section: "print-runs", status: 400 },
        <>
          <ul>
            {Object.entries(parsed.errors).map(([field, message]) => (
              <li>{`${field || "layout"}: ${message}`}</li>
            ))}
          </ul>
          <p>
            <a href={`/console/print-runs/${id}`}>Back to the print run</a>
          </p>
        </>,
      );
    }
    const sheet = await batchSheet(db, id, parsed.data, config.qrPayloadTemplate);
    return markStreamedBody(
      c.body(sheet.stream, 200, {
        "Content-Type": "application/pdf",
        "Content-Disposition": contentDisposition("attachment", sheet.filename),
      }),
    );
  });

  router.get("/print-runs/:id/disable", async (c) => {
    const batch = await getQrCodeBatch(c.get("deps").db, idParam(c));
    return confirmPage(c, {
      title: `Disable print run ${batch.id}?`,
      section: "print-runs",
      action: `/console/print-runs/${batch.id}/disable`,
      button: "Disable",
      cancelHref: `/console/print-runs/${batch.id}`,
      children: (
        <p>{`All ${batch.codes} codes of this print run stop working for new redemptions. Readers who already activated the book keep it. You can enable the codes again later.`}</p>
      ),
    });
  });

  for (const [action, enabled] of [
    ["enable", true],
    ["disable", false],
  ] as const) {
    router.post(`/print-runs/:id/${action}`, async (c) => {
      const { db, clock } = c.get("deps");
      const batch = await setQrCodeBatchEnabled(db, auditSourceOf(c), idParam(c), enabled, clock.now());
      return redirectTo(
        c,
        `/console/print-runs/${batch.id}`,
        enabled ? "print-run-enabled" : "print-run-disabled",
      );
    });
  }
}
