// GET /console/apks (README "Console"): the active bookapp and launcher, every APK (one page), an
// upload form per kind (assets/upload.js shows its progress; package, versionCode and signer are
// read from the file, services/apks.ts createApkFromFile) and, per APK, what was read from it and
// Activate (another package or signer than the active one's: a confirmation page first), and per
// kind Roll back (the previous APK activated again).
import type { Hono } from "hono";
import { receiveFile } from "../../http/file-upload";
import type { AppBindings } from "../../http/types";
import { AppError } from "../../lib/problems";
import {
  type ApkKind,
  type ApkRow,
  activateApk,
  createApkFromFile,
  getActiveApks,
  getApk,
  listApks,
  previousApk,
} from "../../services/apks";
import { ErrorSummary, type FieldErrors, FileField, Form, readForm, Submit } from "../kit/form";
import { page } from "../kit/layout";
import { confirmPage } from "../kit/pages";
import { auditSourceOf, type ConsoleContext, idParam, redirectTo } from "../kit/respond";
import { DataTable, ListQuery, PAGE_SIZE } from "../kit/table";
import { Facts, pageRows, when, windowOf } from "./shared";

const KINDS: readonly ApkKind[] = ["bookapp", "launcher"];
const apkPath = (id: number) => `/console/apks/${id}`;

const describe = (apk: ApkRow | null) =>
  apk ? `${apk.versionName} (versionCode ${apk.versionCode}, APK ${apk.id})` : "none";

/** Whether activating `apk` changes the package or signer of its kind's active APK. */
function changesLineage(apk: ApkRow, active: ApkRow | null): boolean {
  if (!active || active.id === apk.id) return false;
  if (active.packageName && apk.packageName && active.packageName !== apk.packageName) return true;
  return (active.signerSha256 ?? null) !== (apk.signerSha256 ?? null);
}

async function listPage(c: ConsoleContext, errors: Partial<Record<ApkKind, string>> = {}, status = 200) {
  const { db } = c.get("deps");
  const query = ListQuery.of(c, ["versionCode", "createdAt", "id"] as const, {
    sort: "createdAt",
    dir: "desc",
  });
  const [active, list] = await Promise.all([getActiveApks(db), listApks(db, windowOf(query)).then(pageRows)]);
  const summary: FieldErrors = {};
  for (const kind of KINDS) if (errors[kind]) summary[`apk-${kind}`] = errors[kind]!;
  return page(
    c,
    { title: "APKs", section: "apks", status },
    <>
      <ErrorSummary
        errors={summary}
        labels={{ "apk-bookapp": "APK (bookapp)", "apk-launcher": "APK (launcher)" }}
      />
      <Facts
        rows={KINDS.map((kind) => [
          `Active ${kind}`,
          active[kind] ? <a href={apkPath(active[kind]!.id)}>{describe(active[kind])}</a> : "none",
        ])}
      />
      {KINDS.map((kind) => (
        <section aria-labelledby={`upload-${kind}`}>
          <h2 id={`upload-${kind}`}>{`Upload a ${kind} APK`}</h2>
          <p>Kind: {kind}. It is not active until you activate it.</p>
          <Form action={`/console/apks/upload?kind=${kind}`} upload label={`Upload a ${kind} APK`}>
            <FileField
              name={`apk-${kind}`}
              label="APK"
              accept=".apk,application/vnd.android.package-archive"
              hint="The package, versionCode, versionName and signer are read from the file."
              error={errors[kind]}
              required
            />
            <Submit label="Upload" />
          </Form>
          {active[kind] && (
            <Form
              action={`/console/apks/rollback?kind=${kind}`}
              class="inline-form"
              label={`Roll the ${kind} back`}
            >
              <Submit label={`Roll the ${kind} back`} />
            </Form>
          )}
        </section>
      ))}
      <h2>Every APK</h2>
      <DataTable
        id="apks"
        caption="APKs"
        columns={[
          { label: "Kind" },
          { label: "Version code", sort: "versionCode" as const, numeric: true },
          { label: "Version name" },
          { label: "Package" },
          { label: "State" },
          { label: "Uploaded", sort: "createdAt" as const },
        ]}
        query={query}
        rows={list.rows.map((apk) => (
          <tr>
            <td>{apk.kind}</td>
            <td class="numeric">
              <a href={apkPath(apk.id)}>{apk.versionCode}</a>
            </td>
            <td>{apk.versionName}</td>
            <td>{apk.packageName ?? "—"}</td>
            <td>{apk.active ? "active" : apk.fileSha256 ? "inactive" : "no file"}</td>
            <td>{when(apk.fileUploadedAt)}</td>
          </tr>
        ))}
        total={list.total}
        hasNext={(query.page + 1) * PAGE_SIZE < list.total}
        empty="No APKs yet."
      />
    </>,
  );
}

function kindOf(c: ConsoleContext): ApkKind {
  const kind = c.req.query("kind");
  if (kind !== "bookapp" && kind !== "launcher") throw new AppError("NOT_FOUND", "No such kind of APK.");
  return kind;
}

export function mountApks(router: Hono<AppBindings>): void {
  router.get("/apks", (c) => listPage(c));

  router.post("/apks/upload", async (c) => {
    const kind = kindOf(c);
    const deps = c.get("deps");
    try {
      const file = await receiveFile(c, "apk", `apk-${kind}`);
      const apk = await createApkFromFile(
        deps.db,
        auditSourceOf(c),
        kind,
        { sha256: file.sha256, size: file.size, filename: file.filename, metadata: file.inspected },
        deps.clock.now(),
        deps.blobs,
      );
      return redirectTo(c, apkPath(apk.id), "apk-uploaded");
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      if (error.code === "CONFLICT") {
        const why = `${error.message} Raise versionCode in the app's build and upload the new file, or activate the APK that has it.`;
        return listPage(c, { [kind]: why }, 409);
      }
      if (error.status === 400 || error.status === 413 || error.status === 415) {
        return listPage(c, { [kind]: error.message }, error.status);
      }
      throw error;
    }
  });

  router.get("/apks/:id", async (c) => {
    const { db } = c.get("deps");
    const apk = await getApk(db, idParam(c));
    const active = (await getActiveApks(db))[apk.kind];
    const other = changesLineage(apk, active);
    return page(
      c,
      { title: `${apk.kind} ${apk.versionName}`, section: "apks" },
      <>
        <Facts
          rows={[
            ["Kind", apk.kind],
            ["Package", apk.packageName ?? "—"],
            ["Version code", String(apk.versionCode)],
            ["Version name", apk.versionName],
            ["Signer (certificate SHA-256)", apk.signerSha256 ? <code>{apk.signerSha256}</code> : "unsigned"],
            ["Minimum Android SDK", apk.minSdk === null ? "—" : String(apk.minSdk)],
            ["File", apk.fileSha256 ? `${apk.fileFilename ?? "(no name)"}, ${apk.fileSize} bytes` : "none"],
            ["Release notes", apk.releaseNotes ?? "—"],
            ["State", apk.active ? "active" : "inactive"],
            [`Active ${apk.kind}`, describe(active)],
          ]}
        />
        {other && (
          <p role="note">
            This APK has another package or signer than the active {apk.kind}: devices cannot update to it
            over the installed app. Activating it asks for confirmation.
          </p>
        )}
        {!apk.active &&
          apk.fileSha256 &&
          (other ? (
            <a class="button danger" href={`${apkPath(apk.id)}/activate`}>
              Activate…
            </a>
          ) : (
            <Form action={`${apkPath(apk.id)}/activate`} class="inline-form" label="Activate the APK">
              <Submit label="Activate" />
            </Form>
          ))}
        <p>
          <a href="/console/apks">All APKs</a>
        </p>
      </>,
    );
  });

  router.get("/apks/:id/activate", async (c) => {
    const { db } = c.get("deps");
    const apk = await getApk(db, idParam(c));
    const active = (await getActiveApks(db))[apk.kind];
    return confirmPage(c, {
      title: "Activate an APK with another signer?",
      section: "apks",
      action: `${apkPath(apk.id)}/activate`,
      button: "Activate",
      cancelHref: apkPath(apk.id),
      hidden: { allowSignerChange: "true" },
      children: (
        <p>
          Activate {apk.kind} {describe(apk)}, package {apk.packageName ?? "unknown"},{" "}
          {apk.signerSha256 ? `signer ${apk.signerSha256}` : "unsigned"}? The active one is {describe(active)}
          , package {active?.packageName ?? "unknown"},{" "}
          {active?.signerSha256 ? `signer ${active.signerSha256}` : "unsigned"}. Installed apps cannot update
          across a signer change: readers must uninstall and install again.
        </p>
      ),
    });
  });

  router.post("/apks/:id/activate", async (c) => {
    const id = idParam(c);
    const form = await readForm(c);
    const { db, clock } = c.get("deps");
    try {
      await activateApk(
        db,
        auditSourceOf(c),
        id,
        { allowSignerChange: form.allowSignerChange === "true" },
        clock.now(),
      );
    } catch (error) {
      // Another package or signer, and not confirmed: the confirmation page says what changes.
      if (error instanceof AppError && error.code === "CONFLICT" && /allowSignerChange/.test(error.message)) {
        return redirectTo(c, `${apkPath(id)}/activate`);
      }
      throw error;
    }
    return redirectTo(c, apkPath(id), "apk-activated");
  });

  router.post("/apks/rollback", async (c) => {
    const kind = kindOf(c);
    const { db, clock } = c.get("deps");
    const previous = await previousApk(db, kind);
    if (!previous) {
      throw new AppError(
        "CONFLICT",
        `There is no earlier ${kind} APK with a file to roll back to. Upload the version to go back to, then activate it.`,
      );
    }
    try {
      await activateApk(db, auditSourceOf(c), previous.id, { allowSignerChange: false }, clock.now());
    } catch (error) {
      if (error instanceof AppError && error.code === "CONFLICT" && /allowSignerChange/.test(error.message)) {
        return redirectTo(c, `${apkPath(previous.id)}/activate`);
      }
      throw error;
    }
    return redirectTo(c, apkPath(previous.id), "apk-activated");
  });
}
