// Real APK variants for tests, and Debian's Android tools as the oracle for what they contain.
// A variant is a fixture with its manifest patched (versionCode, package) and its signatures
// stripped, re-zipped, and — unless it should stay unsigned — signed by `apksigner` with a
// throw-away `keytool` key. Tests ask `requireAndroidTools` first: missing tools skip them.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspectZip, readZipEntry } from "../../src/storage/file-types";
import { requireTool } from "./requires";
import { makeZip } from "./zip";

/** The seven AOSP APKs and what aapt and apksigner report for them (test/fixtures/apk). */
export const FIXTURES = new URL("../fixtures/apk/", import.meta.url).pathname;

export interface ExpectedApk {
  file: string;
  sha256: string;
  size: number;
  packageName: string;
  versionCode: number;
  versionName: string;
  minSdk: number;
  signerSha256: string | null;
}

export const expectedApks: ExpectedApk[] = JSON.parse(
  readFileSync(join(FIXTURES, "expected.json"), "utf8"),
).apks;

export const fixtureBytes = (file: string) => new Uint8Array(readFileSync(join(FIXTURES, file)));

const debianPackages = {
  aapt: "aapt",
  apksigner: "apksigner",
  keytool: "default-jre-headless",
};

type AndroidTool = keyof typeof debianPackages;

/** Whether the tests needing these tools run (see requires.ts); each missing one is named. */
export function requireAndroidTools(...tools: AndroidTool[]): boolean {
  return tools.map((tool) => requireTool(tool, debianPackages[tool])).every(Boolean);
}

function run(tool: AndroidTool, args: string[]): { stdout: string; ok: boolean } {
  const result = Bun.spawnSync([tool, ...args], { stdout: "pipe", stderr: "pipe" });
  const stdout = result.stdout.toString();
  return { stdout: stdout + result.stderr.toString(), ok: result.exitCode === 0 };
}

/** What `aapt dump badging` reports. */
export function aaptBadging(path: string) {
  const { stdout, ok } = run("aapt", ["dump", "badging", path]);
  if (!ok) throw new Error(`aapt dump badging failed: ${stdout}`);
  const pkg = /^package: name='([^']*)' versionCode='([^']*)' versionName='([^']*)'/m.exec(stdout);
  const sdk = /^sdkVersion:'([^']*)'/m.exec(stdout);
  if (!pkg) throw new Error(`aapt printed no package line: ${stdout}`);
  return {
    packageName: pkg[1]!,
    versionCode: Number(pkg[2]),
    versionName: pkg[3]!,
    minSdk: sdk ? Number(sdk[1]) : null,
  };
}

/** The first signer's certificate SHA-256 as `apksigner verify --print-certs` reports it (it must verify). */
export function apksignerSigner(path: string): string {
  const { stdout, ok } = run("apksigner", ["verify", "--min-sdk-version", "24", "--print-certs", path]);
  if (!ok) throw new Error(`apksigner verify failed: ${stdout}`);
  const digest = /^Signer #1 certificate SHA-256 digest: ([0-9a-f]{64})$/m.exec(stdout);
  if (!digest) throw new Error(`apksigner printed no signer: ${stdout}`);
  return digest[1]!;
}

export interface KeyStore {
  path: string;
  password: string;
}

export type KeyKind = "RSA" | "EC" | "DSA";

/** A work folder with throw-away keys; remove it with `dispose()`. */
export class ApkWorkshop {
  readonly dir = mkdtempSync(join(tmpdir(), "bookdist-apk-"));
  private counter = 0;

  key(kind: KeyKind, name = `${kind.toLowerCase()}-${++this.counter}`): KeyStore {
    const path = join(this.dir, `${name}.p12`);
    const password = "throwaway-pass";
    const algorithm =
      kind === "EC" ? ["-keyalg", "EC", "-groupname", "secp256r1"] : ["-keyalg", kind, "-keysize", "2048"];
    const { stdout, ok } = run("keytool", [
      "-genkeypair",
      "-keystore",
      path,
      "-storetype",
      "PKCS12",
      "-storepass",
      password,
      "-keypass",
      password,
      "-alias",
      "key",
      ...algorithm,
      "-dname",
      `CN=bookdist test ${name}`,
      "-validity",
      "3650",
    ]);
    if (!ok) throw new Error(`keytool failed: ${stdout}`);
    return { path, password };
  }

  /**
   * A fixture re-made: manifest patched, old signatures gone, then signed by `signer` with the
   * given schemes (all three unless told), or left unsigned. Returns the file's path and bytes.
   */
  async build(options: {
    base?: string;
    versionCode?: number;
    packageName?: string;
    signer?: KeyStore | null;
    schemes?: { v1?: boolean; v2?: boolean; v3?: boolean };
  }): Promise<{ path: string; bytes: Uint8Array<ArrayBuffer> }> {
    const base = join(FIXTURES, options.base ?? "tinyapp-v1v2v3.apk");
    const directory = await inspectZip(base, Bun.file(base).size);
    const files: Record<string, Uint8Array> = {};
    for (const entry of directory.entries) {
      if (entry.name.startsWith("META-INF/")) continue;
      let data = await readZipEntry(base, entry);
      if (entry.name === "AndroidManifest.xml") data = patchManifest(data, options);
      files[entry.name] = data;
    }
    const name = `variant-${++this.counter}`;
    const unsigned = join(this.dir, `${name}-unsigned.apk`);
    await Bun.write(unsigned, makeZip(files));
    if (!options.signer) return { path: unsigned, bytes: new Uint8Array(readFileSync(unsigned)) };

    const out = join(this.dir, `${name}.apk`);
    const schemes = { v1: true, v2: true, v3: true, ...options.schemes };
    const { stdout, ok } = run("apksigner", [
      "sign",
      "--ks",
      options.signer.path,
      "--ks-pass",
      `pass:${options.signer.password}`,
      "--v1-signing-enabled",
      String(schemes.v1),
      "--v2-signing-enabled",
      String(schemes.v2),
      "--v3-signing-enabled",
      String(schemes.v3),
      "--out",
      out,
      unsigned,
    ]);
    if (!ok) throw new Error(`apksigner sign failed: ${stdout}`);
    return { path: out, bytes: new Uint8Array(readFileSync(out)) };
  }

  /** A two-key lineage: signed by `next` with proof of rotation from `previous` (v3). */
  async buildRotated(previous: KeyStore, next: KeyStore, versionCode?: number) {
    const unsigned = await this.build({ versionCode, signer: null });
    const lineage = join(this.dir, `lineage-${++this.counter}`);
    const rotate = run("apksigner", [
      "rotate",
      "--out",
      lineage,
      "--old-signer",
      "--ks",
      previous.path,
      "--ks-pass",
      `pass:${previous.password}`,
      "--new-signer",
      "--ks",
      next.path,
      "--ks-pass",
      `pass:${next.password}`,
    ]);
    if (!rotate.ok) throw new Error(`apksigner rotate failed: ${rotate.stdout}`);
    const out = join(this.dir, `rotated-${this.counter}.apk`);
    const sign = run("apksigner", [
      "sign",
      "--ks",
      previous.path,
      "--ks-pass",
      `pass:${previous.password}`,
      "--next-signer",
      "--ks",
      next.path,
      "--ks-pass",
      `pass:${next.password}`,
      "--lineage",
      lineage,
      "--out",
      out,
      unsigned.path,
    ]);
    if (!sign.ok) throw new Error(`apksigner sign failed: ${sign.stdout}`);
    return { path: out, bytes: new Uint8Array(readFileSync(out)) };
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const VERSION_CODE_ATTR = 0x0101021b;

/**
 * Rewrites a binary manifest in place: the typed value of android:versionCode, and the package
 * string (same length only, so no offsets move). Walks the chunks itself rather than trusting
 * the parser under test; aapt then confirms the result.
 */
function patchManifest(
  source: Uint8Array,
  options: { versionCode?: number; packageName?: string },
): Uint8Array {
  const bytes = new Uint8Array(source);
  const view = new DataView(bytes.buffer);
  if (options.versionCode !== undefined) {
    let versionCodeIndex = -1;
    let patched = false;
    for (let at = view.getUint16(2, true); at < bytes.length && !patched; ) {
      const type = view.getUint16(at, true);
      const headerSize = view.getUint16(at + 2, true);
      const size = view.getUint32(at + 4, true);
      if (type === 0x0180) {
        for (let i = 0; i < (size - headerSize) / 4; i++) {
          if (view.getUint32(at + headerSize + i * 4, true) === VERSION_CODE_ATTR) versionCodeIndex = i;
        }
      } else if (type === 0x0102) {
        const ext = at + headerSize;
        const first = ext + view.getUint16(ext + 8, true);
        const attributeSize = view.getUint16(ext + 10, true);
        for (let i = 0; i < view.getUint16(ext + 12, true); i++) {
          const a = first + i * attributeSize;
          if (view.getUint32(a + 4, true) === versionCodeIndex) {
            if (view.getUint8(a + 15) !== 0x10) throw new Error("versionCode is not a decimal integer here");
            view.setUint32(a + 16, options.versionCode, true);
            patched = true;
          }
        }
      }
      at += size;
    }
    if (!patched) throw new Error("no android:versionCode to patch");
  }
  if (options.packageName !== undefined) {
    const from = "android.appsecurity.cts.tinyapp";
    if (options.packageName.length !== from.length)
      throw new Error(`package must have ${from.length} characters`);
    // The pool holds UTF-16 strings: a length unit, the characters, a 0 terminator.
    const encode = (text: string) => {
      const out = new Uint8Array(2 + text.length * 2 + 2);
      const v = new DataView(out.buffer);
      v.setUint16(0, text.length, true);
      for (let i = 0; i < text.length; i++) v.setUint16(2 + i * 2, text.charCodeAt(i), true);
      return out;
    };
    const needle = encode(from);
    const at = Buffer.from(bytes).indexOf(Buffer.from(needle));
    if (at < 0) throw new Error("package string not found");
    bytes.set(encode(options.packageName), at);
  }
  return bytes;
}
