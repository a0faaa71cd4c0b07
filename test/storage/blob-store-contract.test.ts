// One contract for both blob-store drivers (STORAGE=local and STORAGE=s3 against a real Ceph
// RADOS Gateway): what services, routes and jobs rely on, whichever runs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfig } from "../../src/config";
import { AppError } from "../../src/lib/problems";
import type { BlobStorage, BlobStore } from "../../src/storage/blob-store";
import { createBlobStore } from "../../src/storage/create-blob-store";
import { recogniseArchive } from "../../src/storage/epub";
import type { ReadAt } from "../../src/storage/file-types";
import { PART_SIZE, type S3BlobStore } from "../../src/storage/s3-blob-store";
import { requireCeph, sharedCeph } from "../helpers/ceph";
import { buildEpub } from "../helpers/epub";
import { s3Env } from "../helpers/s3-env";

const sha256 = (bytes: Uint8Array | string) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
const bytesOf = (text: string) => new TextEncoder().encode(text);

async function* chunks(bytes: Uint8Array, size = 64 * 1024): AsyncIterable<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

const newDeploymentId = () => crypto.randomUUID().replaceAll("-", "");

async function makeStore(
  env: Record<string, string>,
): Promise<{ store: BlobStorage; dir: string; other(owner: string | undefined): BlobStorage }> {
  const dir = mkdtempSync(join(tmpdir(), "bookdist-contract-"));
  const parsed = parseConfig({ DATA_DIR: dir, ...env });
  if (!parsed.ok) throw new Error(parsed.problems.join("\n"));
  // A deployment id of its own: its writes put their owner markers.
  const store = createBlobStore(parsed.config, newDeploymentId());
  await store.init();
  // Another deployment on the same folder or bucket and prefix.
  return { store, dir, other: (owner) => createBlobStore(parsed.config, owner) };
}

async function bodyOf(store: BlobStore, sha: string, range: { start: number; end: number } | null = null) {
  const source = store.source(sha);
  if (source.kind === "redirect") {
    const { url } = source.presign({
      contentType: "application/octet-stream",
      contentDisposition: undefined,
    });
    const headers: Record<string, string> = range ? { Range: `bytes=${range.start}-${range.end}` } : {};
    return new Uint8Array(await (await fetch(url, { headers })).arrayBuffer());
  }
  return new Uint8Array(await new Response(await source.read(range)).arrayBuffer());
}

const ceph = requireCeph();
const drivers: [string, boolean, () => Promise<Record<string, string>>][] = [
  ["local", true, async () => ({})],
  ["s3 (proxy)", ceph, () => s3Env("proxy")],
  ["s3 (redirect)", ceph, () => s3Env("redirect")],
];

for (const [name, available, env] of drivers) {
  describe.if(available)(`blob store contract: ${name}`, () => {
    let store: BlobStorage;
    let dir: string;
    let other: (owner: string | undefined) => BlobStorage;
    beforeAll(async () => {
      ({ store, dir, other } = await makeStore(await env()));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const tempFiles = () => readdirSync(join(dir, "blobs", "tmp")).filter((file) => file.endsWith(".part"));

    test("write stores the bytes under their hash; exists, list, read, ranges", async () => {
      const bytes = bytesOf(`contract ${name} ${crypto.randomUUID()}`);
      const written = await store.write(chunks(bytes, 7), { maxBytes: 1024 });
      expect(written).toEqual({ sha256: sha256(bytes), size: bytes.length, inspected: undefined });
      expect(await store.exists(written.sha256)).toBe(true);
      expect(await store.exists(sha256("never written"))).toBe(false);
      expect(await bodyOf(store, written.sha256)).toEqual(bytes);
      expect(await bodyOf(store, written.sha256, { start: 2, end: 5 })).toEqual(bytes.subarray(2, 6));
      const listed: string[] = [];
      for await (const blob of store.listBlobs()) listed.push(blob.sha256);
      expect(listed).toContain(written.sha256);
      expect(tempFiles()).toEqual([]);
    });

    test("readRange reads a part of a blob, whatever the downloads; an EPUB is recognised through it", async () => {
      const bytes = buildEpub("epub3");
      const { sha256: sha } = await store.write(chunks(bytes, 1000), { maxBytes: 1 << 20 });
      expect(await store.readRange(sha, 3, 40)).toEqual(bytes.subarray(3, 40));
      expect(await store.readRange(sha, bytes.length - 5, bytes.length + 100)).toEqual(bytes.subarray(-5));
      expect(await store.readRange(sha, 10, 10)).toEqual(new Uint8Array(0));
      const readAt: ReadAt = async (start, end) => {
        const part = await store.readRange(sha, start, end);
        return new DataView(part.buffer, part.byteOffset, part.byteLength);
      };
      const recognised = await recogniseArchive(readAt, bytes.length);
      expect(recognised.format).toBe("epub");
      expect(recognised.epub?.title).toBe("The Little Test Book");
    });

    test("too large or refused by inspect: nothing published, no temp file", async () => {
      const bytes = bytesOf(`too large ${name} ${"x".repeat(100)}`);
      const refused = store.write(chunks(bytes, 10), { maxBytes: 50 });
      expect(refused).rejects.toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
      await refused.catch(() => {});
      const inspected = store.write(chunks(bytes), {
        maxBytes: 1024,
        inspect: async () => {
          throw new AppError("UNSUPPORTED_MEDIA_TYPE", "no");
        },
      });
      await inspected.catch(() => {});
      expect(inspected).rejects.toMatchObject({ code: "UNSUPPORTED_MEDIA_TYPE" });
      expect(await store.exists(sha256(bytes))).toBe(false);
      expect(tempFiles()).toEqual([]);
    });

    test("removeIfUnchangedSince spares a blob written after the cutoff, removes an older one", async () => {
      const bytes = bytesOf(`removable ${name} ${crypto.randomUUID()}`);
      const { sha256: sha } = await store.write(chunks(bytes), { maxBytes: 1024 });
      expect(await store.removeIfUnchangedSince(sha, new Date(Date.now() - 60_000))).toBe(false);
      expect(await store.exists(sha)).toBe(true);
      expect(await store.removeIfUnchangedSince(sha, new Date(Date.now() + 60_000))).toBe(true);
      expect(await store.exists(sha)).toBe(false);
      expect(await store.removeIfUnchangedSince(sha, new Date(Date.now() + 60_000))).toBe(false);
    });

    test("release removes a blob only when this deployment alone marked it; never an unmarked one", async () => {
      const second = other(newDeploymentId());
      const unmarked = other(undefined);
      const write = async (target: BlobStore, text: string) =>
        (await target.write(chunks(bytesOf(`${text} ${name} ${crypto.randomUUID()}`)), { maxBytes: 1024 }))
          .sha256;
      const shared = await write(store, "shared");
      // The same bytes from the second deployment: both hold them.
      const sharedBytes = bytesOf(`shared by two ${name} ${crypto.randomUUID()}`);
      const both = (await store.write(chunks(sharedBytes), { maxBytes: 1024 })).sha256;
      await second.write(chunks(sharedBytes), { maxBytes: 1024 });
      const own = await write(store, "own");
      const nobodys = await write(unmarked, "nobody's");
      const cutoff = new Date(Date.now() + 60_000);
      expect((await store.ownersOf(both)).sort()).toEqual([store.owner!, second.owner!].sort());

      expect(await store.releaseIfUnchangedSince(both, cutoff)).toBe(false);
      expect(await store.exists(both)).toBe(true);
      expect(await store.ownersOf(both)).toEqual([second.owner!]);
      expect(await store.releaseIfUnchangedSince(nobodys, cutoff)).toBe(false);
      expect(await second.releaseIfUnchangedSince(nobodys, cutoff)).toBe(false);
      expect(await store.exists(nobodys)).toBe(true);
      expect(await second.releaseIfUnchangedSince(own, cutoff)).toBe(false);
      expect(await store.exists(own)).toBe(true);
      // Not before the cutoff: nothing younger goes.
      expect(await store.releaseIfUnchangedSince(own, new Date(Date.now() - 60_000))).toBe(false);
      expect(await store.exists(own)).toBe(true);

      expect(await store.releaseIfUnchangedSince(own, cutoff)).toBe(true);
      expect(await store.exists(own)).toBe(false);
      expect(await store.ownersOf(own)).toEqual([]);
      expect(await second.releaseIfUnchangedSince(both, cutoff)).toBe(true);
      expect(await store.exists(both)).toBe(false);
      expect(await store.exists(shared)).toBe(true);
      // Markers are not blobs.
      for await (const blob of store.listBlobs()) expect(blob.sha256).toMatch(/^[0-9a-f]{64}$/);
    });

    test("adopt marks an existing blob as this deployment's and takes the replaced one's marker", async () => {
      const original = other(newDeploymentId());
      const { sha256: sha } = await original.write(
        chunks(bytesOf(`adopted ${name} ${crypto.randomUUID()}`)),
        {
          maxBytes: 1024,
        },
      );
      expect(await store.adopt(sha, original.owner)).toBe(true);
      expect(await store.adopt(sha, original.owner)).toBe(true);
      expect(await store.ownersOf(sha)).toEqual([store.owner!]);
      expect(await store.adopt(sha256("never written"))).toBe(false);
    });

    test("probeStorage passes", async () => {
      await store.probeStorage();
    });
  });
}

describe.if(ceph)("S3 driver", () => {
  test("objects are <prefix>blobs/<sha256>; a multipart upload of several parts arrives intact", async () => {
    const { store, dir } = await makeStore(await s3Env("proxy", { S3_PREFIX: "tenant-a/" }));
    try {
      const s3 = store as S3BlobStore;
      // Three and a half parts of non-repeating bytes: a lost or reordered part changes the hash.
      const bytes = new Uint8Array(Math.floor(PART_SIZE * 3.5));
      crypto.getRandomValues(bytes.subarray(0, 65536));
      for (let at = 65536; at < bytes.length; at += 65536) {
        bytes.copyWithin(at, 0, 65536);
        bytes[at] = at & 0xff;
      }
      const written = await s3.write(chunks(bytes, 1024 * 1024), { maxBytes: bytes.length });
      expect(s3.keyOf(written.sha256)).toBe(`tenant-a/blobs/${written.sha256}`);
      const object = s3.client.file(`tenant-a/blobs/${written.sha256}`);
      expect((await object.stat()).size).toBe(bytes.length);
      const back = new Bun.CryptoHasher("sha256");
      for await (const chunk of object.stream()) back.update(chunk);
      expect(back.digest("hex")).toBe(written.sha256);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("an object already present (and fresh) is not uploaded again", async () => {
    const { store, dir } = await makeStore(await s3Env("proxy"));
    try {
      const s3 = store as S3BlobStore;
      const bytes = bytesOf(`once ${crypto.randomUUID()}`);
      const first = await s3.write(chunks(bytes), { maxBytes: 1024 });
      const before = (await s3.client.file(s3.keyOf(first.sha256)).stat()).etag;
      // Overwrite the object's bytes behind the store's back: a second upload that PUT again
      // would restore them; one that skips leaves the marker.
      await s3.client.write(s3.keyOf(first.sha256), "marker");
      await s3.write(chunks(bytes), { maxBytes: 1024 });
      expect(await s3.client.file(s3.keyOf(first.sha256)).text()).toBe("marker");
      expect(before).toBeTruthy();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a bucket that does not answer: 503 SERVICE_UNAVAILABLE with Retry-After, in bounded time", async () => {
    const { endpoint } = await sharedCeph();
    // A listener that accepts and never answers, and a port nothing listens on.
    const silent = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const closedPort = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
    const closed = `http://127.0.0.1:${closedPort.port}`;
    closedPort.stop(true);
    try {
      for (const target of [`http://127.0.0.1:${silent.port}`, closed]) {
        const { store, dir } = await makeStore({ ...(await s3Env("proxy")), S3_ENDPOINT: target });
        try {
          const started = performance.now();
          const failure = await store.write(chunks(bytesOf("x")), { maxBytes: 10 }).catch((error) => error);
          expect(failure).toBeInstanceOf(AppError);
          expect(failure).toMatchObject({ code: "SERVICE_UNAVAILABLE", headers: { "Retry-After": "5" } });
          expect(store.probeStorage()).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
          expect(performance.now() - started).toBeLessThan(15_000);
          expect(readdirSync(join(dir, "blobs", "tmp")).filter((f) => f.endsWith(".part"))).toEqual([]);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
      expect(endpoint).toStartWith("http://127.0.0.1:");
    } finally {
      silent.stop(true);
    }
  });
});
