// A TypeScript SDK generated from the running server's /v3/api-docs (openapi-typescript types,
// openapi-fetch client) type-checks together with a typed client journey
// (sdk-driver/scenario.ts), and that journey then drives the real server through the SDK only.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import QRCode from "qrcode";
import ts from "typescript";
import { grantAdminWithCli } from "../helpers/admin-cli";
import { projectRoot, type RealServer, startRealServer } from "../helpers/real-server";
import { TEST_PASSWORD } from "../helpers/test-app";
import { makeZip } from "../helpers/zip";

const ADMIN = "sdk-admin@example.com";
const outputRoot = join(projectRoot, "test-output");

/** scenario.ts's entry, typed loosely here: its real types exist only next to the generated SDK. */
type RunJourney = (
  baseUrl: string,
  fixtures: { adminEmail: string; password: string; cover: Blob; archive: Blob },
) => Promise<Record<string, any>>;

let server: RealServer;
let dir: string;

beforeAll(async () => {
  server = await startRealServer();
  // The first admin as the README's walk-through makes one: registered, then granted by an operator.
  const registered = await fetch(`${server.url}/authentication/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email: ADMIN, password: TEST_PASSWORD, firstName: "Ada" }),
  });
  expect(registered.status).toBe(201);
  await grantAdminWithCli(ADMIN, server.dataEnv);
  // Under test-output (git-ignored) so that the driver resolves openapi-fetch from the project.
  mkdirSync(outputRoot, { recursive: true });
  dir = mkdtempSync(join(outputRoot, "sdk-"));
});
afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The SDK's types, as a client project would generate them; binary parts typed as Blob. */
async function generateSdk(): Promise<string> {
  const response = await fetch(`${server.url}/v3/api-docs`);
  expect(response.status).toBe(200);
  const blob = ts.factory.createTypeReferenceNode(ts.factory.createIdentifier("Blob"));
  const ast = await openapiTS((await response.json()) as Parameters<typeof openapiTS>[0], {
    // Input schemas carry defaults (QrCodeInput.enabled): with the option's default (true)
    // openapi-typescript would make those fields required in request bodies too.
    defaultNonNullable: false,
    transform: (schema) => (schema.format === "binary" ? blob : undefined),
  });
  return astToString(ast);
}

async function tsc(project: string): Promise<{ code: number; output: string }> {
  const child = Bun.spawn([join(projectRoot, "node_modules", ".bin", "tsc"), "-p", project], {
    cwd: dir,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, output: stdout + stderr };
}

describe("the generated TypeScript SDK", () => {
  test("type-checks with a typed client journey, which then drives the real server", async () => {
    const schema = await generateSdk();
    expect(schema).toContain('"/book/{id}/newest-book-version"');
    await Bun.write(join(dir, "schema.ts"), schema);
    copyFileSync(join(import.meta.dir, "sdk-driver", "scenario.ts"), join(dir, "scenario.ts"));
    // A client's compiler settings: strict, DOM fetch types, no Bun types.
    await Bun.write(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "Preserve",
          moduleResolution: "bundler",
          lib: ["ES2022", "DOM", "DOM.Iterable"],
          types: [],
          strict: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          noEmit: true,
          skipLibCheck: true,
        },
        files: ["schema.ts", "scenario.ts"],
      }),
    );
    const checked = await tsc(dir);
    expect(checked.output).toBe("");
    expect(checked.code).toBe(0);

    // The same files drive the server.
    const { runJourney } = (await import(join(dir, "scenario.ts"))) as { runJourney: RunJourney };
    const cover = new Uint8Array(await QRCode.toBuffer("cover", { width: 240 }));
    const archive = makeZip({ "book.html": "<h1>The SDK Book</h1>".repeat(20), mimetype: "application/zip" });
    const journey = await runJourney(server.url, {
      adminEmail: ADMIN,
      password: TEST_PASSWORD,
      cover: new Blob([cover], { type: "image/png" }),
      archive: new Blob([archive], { type: "application/zip" }),
    });

    expect(journey.admin.user.roles).toEqual(["user", "admin"]);
    expect(journey.reader.user.roles).toEqual(["user"]);
    expect(journey.book).toMatchObject({ title: "The SDK Book", isbn: "9780306406157", cover: null });
    expect(journey.withCover.cover).toMatchObject({ contentType: "image/png", size: cover.length });
    expect(journey.withCover.cover?.sha256).toBe(new Bun.CryptoHasher("sha256").update(cover).digest("hex"));
    expect(journey.version.archive?.size).toBe(archive.length);
    expect(journey.qrCode.code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/);
    expect(journey.activation).toMatchObject({
      bookId: journey.book.id,
      userUuid: journey.reader.user.uuid,
      qrCodeId: journey.qrCode.id,
    });
    expect(journey.redeemedAgainStatus).toBe(200);
    expect(journey.myBooks).toHaveLength(1);
    expect(journey.myBooks[0]).toMatchObject({
      activationId: journey.activation.id,
      book: { id: journey.book.id },
      newestVersion: { id: journey.version.id },
    });
    expect(journey.bookCount).toBe("1");
    expect(journey.range.status).toBe(206);
    expect(journey.range.contentRange).toBe(`bytes 4-15/${archive.length}`);
    expect(journey.range.bytes).toEqual(archive.slice(4, 16));
    expect(journey.logout).toEqual({ loggedOut: true, sessionsEnded: 1 });
    expect(journey.afterLogout.status).toBe(401);
    expect(journey.afterLogout.problem?.code).toBe("AUTHENTICATION_FAILED");

    // Every request reached the real server; none of its log lines carries a token or password.
    const logs = server.output().join("\n");
    expect(logs).toContain('"path":"/activation/by-qr-code"');
    for (const secret of [journey.admin.token, journey.reader.token, TEST_PASSWORD])
      expect(logs).not.toContain(secret);
  });
});
