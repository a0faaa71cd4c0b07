// KOReader's document id (README "Reading progress"): partialMd5 equals KOReader's
// util.partialMD5 on the vectors (file byte i = i mod 251), through a file on disk and a
// stored blob alike; and, where Debian's luajit is installed, the same loop run by LuaJIT (its
// bit.lshift, its file:seek and file:read) picks the very bytes partialMd5 hashes.
import { afterAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readAtPath } from "../../src/storage/file-types";
import { isPartialMd5, PARTIAL_MD5_OFFSETS, partialMd5 } from "../../src/storage/partial-md5";
import { requireTool } from "../helpers/requires";

const VECTORS: [number, string][] = [
  [0, "d41d8cd98f00b204e9800998ecf8427e"],
  [1, "93b885adfe0da089cdf634904fd59f71"],
  [1000, "a24f1e3ef66950e1327f210e3997ba2c"],
  [1024, "9ee0a0e0c0bc0f1ff29d663d1fdf0743"],
  [1025, "3f3789452b88cb32b8cbfbafe715e29a"],
  [4096, "1544ef7a46131a30cf328f55979db73d"],
  [70000, "f34024643c82aec13b2fd5eb2842658a"],
  [2097152, "da96d9df9e3ed2a4e922f3641ba40600"],
];

const dir = await mkdtemp(join(tmpdir(), "bookdist-partial-md5-"));
afterAll(() => rm(dir, { recursive: true, force: true }));

async function vectorFile(size: number): Promise<string> {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = i % 251;
  const path = join(dir, `v${size}.bin`);
  await writeFile(path, bytes);
  return path;
}

describe("partialMd5", () => {
  test.each(VECTORS)("size %d → %s (KOReader's util.partialMD5)", async (size, expected) => {
    const path = await vectorFile(size);
    const reads: [number, number][] = [];
    const readAt = readAtPath(path);
    const digest = await partialMd5((start, end) => {
      reads.push([start, end]);
      return readAt(start, end);
    }, size);
    expect(digest).toBe(expected);
    expect(isPartialMd5(digest)).toBe(true);
    // Bounded: at most 12 reads of at most 1 KiB, whatever the size.
    expect(reads.length).toBeLessThanOrEqual(12);
    for (const [start, end] of reads) expect(end - start).toBeLessThanOrEqual(1024);
  });

  test("the offsets are 0 and 1024·4^k, k = 0…10", () => {
    expect(PARTIAL_MD5_OFFSETS).toEqual([
      0, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864, 268435456, 1073741824,
    ]);
  });

  test("a different byte inside a sample changes it; one between samples does not", async () => {
    const size = 70000;
    const path = await vectorFile(size);
    const bytes = new Uint8Array(await Bun.file(path).arrayBuffer());
    const digestOf = (data: Uint8Array) =>
      partialMd5(async (start, end) => new DataView(data.buffer.slice(start, end)), data.length);
    const inside = bytes.slice();
    inside[4096 + 10] = (inside[4096 + 10]! + 1) % 256;
    const between = bytes.slice();
    between[3000] = (between[3000]! + 1) % 256;
    expect(await digestOf(inside)).not.toBe(VECTORS[6]![1]);
    expect(await digestOf(between)).toBe(VECTORS[6]![1]);
  });
});

// KOReader's loop (frontend/util.lua, util.partialMD5), its MD5 update replaced by writing the
// sample out: what LuaJIT reads is what KOReader hashes.
const KOREADER_LOOP = `
local bit = require("bit")
local file = io.open(arg[1], "rb")
local step, size = 1024, 1024
for i = -1, 10 do
  file:seek("set", bit.lshift(step, 2*i))
  local sample = file:read(size)
  if sample then io.write(sample) else break end
end
file:close()
`;

describe.if(requireTool("luajit", "luajit"))("against LuaJIT running KOReader's loop", () => {
  test.each(VECTORS.map(([size]) => size))("size %d", async (size) => {
    const path = await vectorFile(size);
    const script = join(dir, "partial.lua");
    await writeFile(script, KOREADER_LOOP);
    const run = Bun.spawnSync(["luajit", script, path], { stdout: "pipe", stderr: "pipe" });
    expect(run.exitCode).toBe(0);
    const luaDigest = createHash("md5").update(run.stdout).digest("hex");
    expect(await partialMd5(readAtPath(path), size)).toBe(luaDigest);
  });
});
