// HAL links are absolute from PUBLIC_URL, root-relative without it, and never carry a
// host taken from the request — a forged `Host: evil.example` must not turn `next` links, HAL
// `_links`, `Location` or an APK's `downloadUrl` into URLs that send a client's token elsewhere.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fixtureBytes } from "../helpers/android-tools";
import { rawRequest } from "../helpers/raw-http";
import { startsRealServer } from "../helpers/requires";
import { type SpawnedServer, spawnServer } from "../helpers/spawn-server";
import { createTestApp, type TestApp } from "../helpers/test-app";
import { multipartFile } from "../helpers/zip";

const EVIL = "evil.example";
const HAL = "application/hal+json";

/** Makes two books and an active APK with its file through a forged Host; every URL offered meanwhile. */
async function seed(t: TestApp, origin: string) {
  const admin = await t.admin();
  const urls: string[] = [];
  /** Notes every URL the answer offers a client (Link, Location, each `href` and `downloadUrl`). */
  const call = async (method: string, path: string, options: { json?: unknown; body?: FormData } = {}) => {
    const response = await t.app.request(`${origin}${path}`, {
      method,
      headers: {
        Host: EVIL,
        Accept: HAL,
        Authorization: `Bearer ${admin.token}`,
        ...(options.json ? { "Content-Type": "application/json" } : {}),
      },
      body: options.json ? JSON.stringify(options.json) : options.body,
    });
    expect(response.status).toBeLessThan(300);
    for (const match of (response.headers.get("link") ?? "").matchAll(/<([^>]*)>/g)) urls.push(match[1]!);
    const location = response.headers.get("location");
    if (location) urls.push(location);
    const text = await response.text();
    for (const match of text.matchAll(/"(?:href|downloadUrl)":"([^"]*)"/g)) urls.push(match[1]!);
    return JSON.parse(text);
  };
  const bookId = (await call("POST", "/book", { json: { title: "Links" } })).id;
  await call("POST", "/book", { json: { title: "More links" } });
  const apkId = (
    await call("POST", "/apk", { json: { kind: "bookapp", versionCode: 10, versionName: "1.0" } })
  ).id;
  await call("POST", `/apk/${apkId}/upload`, {
    body: multipartFile(fixtureBytes("tinyapp-v1v2v3.apk"), { filename: "app.apk" }),
  });
  await call("PUT", `/apk/${apkId}`, {
    json: { kind: "bookapp", versionCode: 10, versionName: "1.0", active: true },
  });
  for (const path of [
    "/book?page=0&size=1",
    "/book?page=1&size=1",
    `/book/${bookId}`,
    "/apk/active",
    "/apk",
  ]) {
    await call("GET", path);
  }
  return { urls, bookId, apkId };
}

describe("links never take the request's host", () => {
  let t: TestApp;
  afterAll(() => t?.close());

  test("without PUBLIC_URL: every link is root-relative, whatever Host says", async () => {
    t = await createTestApp();
    const { urls, bookId, apkId } = await seed(t, `http://${EVIL}`);
    expect(urls.length).toBeGreaterThan(15);
    for (const url of urls) expect(url).toMatch(/^\/[^/]/);
    expect(urls).toContain(`/book/${bookId}`);
    expect(urls).toContain("/book?page=1&size=1");
    expect(urls.some((url) => url.startsWith(`/apk/${apkId}/download?sha256=`))).toBe(true);
  });

  test("with PUBLIC_URL: every HAL, Link and download URL starts with it", async () => {
    await t.close();
    t = await createTestApp({ env: { PUBLIC_URL: "https://books.example.com/dist/" } });
    const { urls, bookId } = await seed(t, `http://${EVIL}`);
    // Location stays root-relative: a client resolves it against the URL it called.
    const absolute = urls.filter((url) => !url.startsWith("/"));
    expect(absolute.length).toBeGreaterThan(15);
    for (const url of absolute) expect(url.startsWith("https://books.example.com/dist/")).toBe(true);
    expect(urls).toContain(`https://books.example.com/dist/book/${bookId}`);
    for (const url of urls) expect(url).not.toContain(EVIL);
  });
});

describe.if(startsRealServer())("a real server answering a forged Host", () => {
  let dataDir: string;
  let server: SpawnedServer;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "bookdist-host-"));
    server = await spawnServer({ dataDir });
  }, 60_000);
  afterAll(async () => {
    server?.kill("SIGKILL");
    await server?.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("Host: evil.example appears in no Link header and no _links", async () => {
    const registered = await fetch(`${server.url}/authentication/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: "host-reader@example.com", password: "correct horse battery staple" }),
    });
    expect(registered.status).toBe(201);
    const { token } = (await registered.json()) as { token: string };
    const response = await rawRequest(
      server.port,
      `GET /book?page=0&size=5 HTTP/1.1\r\nHost: ${EVIL}\r\nAccept: ${HAL}\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
    );
    expect(response.status).toBe(200);
    expect(response.headers.link).toBe(
      '</book?page=0&size=5>; rel="first", </book?page=0&size=5>; rel="last"',
    );
    expect(JSON.parse(response.body)._links.self.href).toBe("/book?page=0&size=5");
    expect(JSON.stringify(response)).not.toContain(EVIL);
  });
});
