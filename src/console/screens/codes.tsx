// GET /console/codes?q= (README "Console"): a printed code looked up as a reader typed it,
// normalised as redemption does (services/qr-codes.ts findCodeByText: one read on the codes'
// unique index): its book, print run, state and activations; enable it, or disable it after a
// confirmation page of its own.
import type { Hono } from "hono";
import type { AppBindings } from "../../http/types";
import { listActivations } from "../../services/activations";
import { getBook } from "../../services/books";
import { getQrCodeBatch } from "../../services/qr-code-batches";
import { findCodeByText, getQrCode, setQrCodeEnabled } from "../../services/qr-codes";
import { Form, Submit } from "../kit/form";
import { page } from "../kit/layout";
import { confirmPage } from "../kit/pages";
import { auditSourceOf, type ConsoleContext, idParam, redirectTo } from "../kit/respond";
import { ListQuery, SearchForm } from "../kit/table";
import { ActivationsTable, BookLink, Facts, pageRows, when, windowOf } from "./shared";

type QrCode = Awaited<ReturnType<typeof getQrCode>>;

/** What a code's state is, in the words redemption answers with. */
function stateOf(code: QrCode, now: Date): string {
  if (!code.enabled) return "Disabled: redeeming it is refused";
  if (code.expiresAt && code.expiresAt.getTime() <= now.getTime()) return "Expired";
  if (code.activationCount >= code.maxActivations) return "Used up: every activation taken";
  return "Available";
}

const codePath = (code: QrCode) => `/console/codes?q=${encodeURIComponent(code.code)}`;

async function codePage(c: ConsoleContext, code: QrCode) {
  const { db, clock } = c.get("deps");
  const query = ListQuery.of(c, ["createdAt"] as const, { sort: "createdAt", dir: "desc" }, ["q"]);
  const [book, batch, activations] = await Promise.all([
    getBook(db, code.bookId).catch(() => undefined),
    code.batchId === null ? undefined : getQrCodeBatch(db, code.batchId).catch(() => undefined),
    listActivations(db, windowOf(query), { qrCodeId: code.id }).then(pageRows),
  ]);
  const titles = new Map(book ? [[book.id, book.title]] : []);
  return (
    <section aria-labelledby="code-title">
      <h2 id="code-title">
        Code <code>{code.code}</code>
      </h2>
      <Facts
        rows={[
          ["Book", <BookLink id={code.bookId} title={book?.title} />],
          [
            "Print run",
            code.batchId === null ? (
              "None (a single code)"
            ) : (
              <a href={`/console/print-runs/${code.batchId}`}>
                {batch?.label ? `${batch.label} (print run ${code.batchId})` : `Print run ${code.batchId}`}
              </a>
            ),
          ],
          ["State", stateOf(code, clock.now())],
          ["Activations", `${code.activationCount} of ${code.maxActivations}`],
          ["Label", code.label ?? "—"],
          ["Expires", when(code.expiresAt)],
          ["First redeemed", when(code.firstRedeemedAt)],
        ]}
      />
      <div class="actions">
        {code.enabled ? (
          <a class="button danger" href={`/console/codes/${code.id}/disable`}>
            Disable this code
          </a>
        ) : (
          <Form action={`/console/codes/${code.id}/enable`} class="inline-form" label="Enable the code">
            <Submit label="Enable" />
          </Form>
        )}
      </div>
      <ActivationsTable
        id="code-activations"
        caption="Activations made from this code"
        query={query}
        rows={activations.rows}
        total={activations.total}
        titles={titles}
        dateSort="createdAt"
      />
    </section>
  );
}

export function mountCodes(router: Hono<AppBindings>): void {
  router.get("/codes", async (c) => {
    const q = (c.req.query("q") ?? "").trim().slice(0, 200);
    const code = q === "" ? undefined : await findCodeByText(c.get("deps").db, q);
    return page(
      c,
      { title: "Codes", section: "codes" },
      <>
        <SearchForm action="/console/codes" target="code-result" label="Code" value={q} />
        <p class="hint">
          Type the code as it is printed or as the reader typed it: case, dashes and spaces do not matter, nor
          O for 0 or I and L for 1.
        </p>
        <div id="code-result" aria-live="polite">
          {q === "" ? null : code ? (
            await codePage(c, code)
          ) : (
            <p role="status">
              No code is <code>{q}</code>. Check it against the printed sheet, or look the reader up under{" "}
              <a href="/console/users">Users</a>.
            </p>
          )}
        </div>
      </>,
    );
  });

  router.post("/codes/:id/enable", async (c) => {
    const { db, clock } = c.get("deps");
    const code = await setQrCodeEnabled(db, auditSourceOf(c), idParam(c), true, clock.now());
    return redirectTo(c, codePath(code), "code-enabled");
  });

  router.get("/codes/:id/disable", async (c) => {
    const code = await getQrCode(c.get("deps").db, idParam(c));
    return confirmPage(c, {
      title: "Disable the code?",
      section: "codes",
      action: `/console/codes/${code.id}/disable`,
      button: "Disable",
      cancelHref: codePath(code),
      children: (
        <p>
          Disable the code <code>{code.code}</code>? Nobody can redeem it until it is enabled again; the{" "}
          {code.activationCount} activations already made from it stay.
        </p>
      ),
    });
  });

  router.post("/codes/:id/disable", async (c) => {
    const { db, clock } = c.get("deps");
    const code = await setQrCodeEnabled(db, auditSourceOf(c), idParam(c), false, clock.now());
    return redirectTo(c, codePath(code), "code-disabled");
  });
}
