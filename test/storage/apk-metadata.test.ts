// bookdist must read from an APK what Android's own tools read: `aapt dump badging` for the
// manifest, `apksigner verify --print-certs` for the signer. The seven AOSP fixtures are checked
// against what those tools reported (expected.json); the variants made here against the tools
// themselves, run in the test.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { X509Certificate } from "node:crypto";
import { join } from "node:path";
import fc from "fast-check";
import { AppError } from "../../src/lib/problems";
import { BinaryXmlError } from "../../src/storage/android-binary-xml";
import { inspectApkMetadata, manifestFacts } from "../../src/storage/apk-metadata";
import { pkcs7SignerCertificate, readSigningBlock } from "../../src/storage/apk-signing";
import { inspectZip, readZipEntry } from "../../src/storage/file-types";
import {
  ApkWorkshop,
  aaptBadging,
  apksignerSigner,
  expectedApks,
  FIXTURES,
  type KeyStore,
  requireAndroidTools,
} from "../helpers/android-tools";
import { makeZip } from "../helpers/zip";

// The fixtures are checked against what the tools reported; the variants need the tools themselves.
const hasAndroidTools = requireAndroidTools("aapt", "apksigner", "keytool");

const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");

async function inspectBytes(workshop: ApkWorkshop, bytes: Uint8Array, name: string) {
  const path = join(workshop.dir, name);
  await Bun.write(path, bytes);
  return inspectApkMetadata(path, bytes.byteLength);
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("the AOSP fixtures read as aapt and apksigner reported them", () => {
  test.each(expectedApks)("$file", async (expected) => {
    const path = join(FIXTURES, expected.file);
    expect(Bun.file(path).size).toBe(expected.size);
    const metadata = await inspectApkMetadata(path, expected.size);
    expect({
      packageName: metadata.packageName,
      versionCode: metadata.versionCode,
      versionName: metadata.versionName,
      minSdk: metadata.minSdk,
      signerSha256: metadata.signerSha256,
    }).toEqual({
      packageName: expected.packageName,
      versionCode: expected.versionCode,
      versionName: expected.versionName,
      minSdk: expected.minSdk,
      signerSha256: expected.signerSha256,
    });
  });

  test("the lineage fixture answers the current (v3) signer, not the v2 block's original one", async () => {
    const path = join(FIXTURES, "tinyapp-lineage-3-signers.apk");
    const metadata = await inspectApkMetadata(path, Bun.file(path).size);
    expect(metadata.signatureScheme).toBe("v3");
    const directory = await inspectZip(path, Bun.file(path).size);
    const block = await readSigningBlock(path, directory);
    expect(block?.has(0x7109871a)).toBe(true);
    expect(block?.has(0xf05368c0)).toBe(true);
  });

  test("the v1 certificate taken from PKCS#7 is a whole X.509 certificate", async () => {
    const path = join(FIXTURES, "tinyapp-v1-rsa2048.apk");
    const directory = await inspectZip(path, Bun.file(path).size);
    const entry = directory.entries.find((e) => /^META-INF\/.*\.RSA$/.test(e.name))!;
    const der = pkcs7SignerCertificate(await readZipEntry(path, entry));
    const certificate = new X509Certificate(der);
    expect(certificate.fingerprint256.replaceAll(":", "").toLowerCase()).toBe(sha256(der));
    expect(sha256(der)).toBe(expectedApks.find((e) => e.file === "tinyapp-v1-rsa2048.apk")!.signerSha256!);
  });
});

describe.if(hasAndroidTools)("variants signed here agree with aapt and apksigner", () => {
  let workshop: ApkWorkshop;
  let keys: Record<"rsa" | "rsa2" | "ec" | "dsa", KeyStore>;
  beforeAll(() => {
    workshop = new ApkWorkshop();
    keys = {
      rsa: workshop.key("RSA"),
      rsa2: workshop.key("RSA"),
      ec: workshop.key("EC"),
      dsa: workshop.key("DSA"),
    };
  });
  afterAll(() => workshop.dispose());

  const cases = [
    { name: "RSA, v1 only", key: "rsa", schemes: { v2: false, v3: false }, scheme: "v1", versionCode: 101 },
    { name: "RSA, v2 only", key: "rsa", schemes: { v1: false, v3: false }, scheme: "v2", versionCode: 102 },
    { name: "RSA, v3 only", key: "rsa2", schemes: { v1: false, v2: false }, scheme: "v3", versionCode: 103 },
    { name: "RSA, v1+v2+v3", key: "rsa2", schemes: {}, scheme: "v3", versionCode: 2_000_000_000 },
    {
      name: "EC P-256, v1 only",
      key: "ec",
      schemes: { v2: false, v3: false },
      scheme: "v1",
      versionCode: 105,
    },
    {
      name: "EC P-256, v2 only",
      key: "ec",
      schemes: { v1: false, v3: false },
      scheme: "v2",
      versionCode: 106,
    },
    { name: "DSA, v1 only", key: "dsa", schemes: { v2: false, v3: false }, scheme: "v1", versionCode: 107 },
  ] as const;

  test.each(cases)("$name", async ({ key, schemes, scheme, versionCode }) => {
    const variant = await workshop.build({ versionCode, signer: keys[key], schemes });
    const metadata = await inspectApkMetadata(variant.path, variant.bytes.byteLength);
    const badging = aaptBadging(variant.path);
    expect(badging.versionCode).toBe(versionCode);
    expect({
      packageName: metadata.packageName,
      versionCode: metadata.versionCode,
      versionName: metadata.versionName,
      minSdk: metadata.minSdk,
    }).toEqual(badging);
    expect(metadata.signerSha256).toBe(apksignerSigner(variant.path));
    expect(metadata.signatureScheme).toBe(scheme);
  });

  test("a changed package name is read as aapt reads it", async () => {
    const variant = await workshop.build({ packageName: "org.example.bookdist.tinyapp.v2", signer: keys.ec });
    const metadata = await inspectApkMetadata(variant.path, variant.bytes.byteLength);
    expect(aaptBadging(variant.path).packageName).toBe("org.example.bookdist.tinyapp.v2");
    expect(metadata.packageName).toBe("org.example.bookdist.tinyapp.v2");
    expect(metadata.signerSha256).toBe(apksignerSigner(variant.path));
  });

  test("after key rotation (apksigner rotate), the new key is the signer", async () => {
    const variant = await workshop.buildRotated(keys.rsa, keys.ec, 120);
    const metadata = await inspectApkMetadata(variant.path, variant.bytes.byteLength);
    const reported = apksignerSigner(variant.path);
    expect(metadata.signerSha256).toBe(reported);
    // …and that is the new key, not the old one.
    const v1Only = await workshop.build({ signer: keys.ec, schemes: { v2: false, v3: false } });
    expect(reported).toBe(apksignerSigner(v1Only.path));
  });

  test("an unsigned variant has no signer, and apksigner agrees it is not signed", async () => {
    const variant = await workshop.build({ versionCode: 130, signer: null });
    const metadata = await inspectApkMetadata(variant.path, variant.bytes.byteLength);
    expect(metadata).toMatchObject({ versionCode: 130, signerSha256: null, signatureScheme: null });
    expect(aaptBadging(variant.path).versionCode).toBe(130);
    expect(() => apksignerSigner(variant.path)).toThrow(/verify failed/);
  });

  test("a zip whose AndroidManifest.xml is not binary XML → 415", async () => {
    const zip = makeZip({ "AndroidManifest.xml": '<manifest package="a.b"/>', "classes.dex": "dex" });
    const error = await refusal(inspectBytes(workshop, zip, "text-manifest.apk"));
    expect(error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    expect(error.message).toContain("AndroidManifest.xml");
  });

  test("a truncated manifest → 415", async () => {
    const path = join(FIXTURES, "tinyapp-v2-rsa2048.apk");
    const directory = await inspectZip(path, Bun.file(path).size);
    const manifest = await readZipEntry(
      path,
      directory.entries.find((e) => e.name === "AndroidManifest.xml")!,
    );
    for (const length of [0, 8, 100, manifest.length >> 1, manifest.length - 1]) {
      const zip = makeZip({ "AndroidManifest.xml": manifest.subarray(0, length) });
      expect((await refusal(inspectBytes(workshop, zip, `cut-${length}.apk`))).code).toBe(
        "UNSUPPORTED_MEDIA_TYPE",
      );
    }
  });

  test("a damaged APK Signing Block → 415, not a guess", async () => {
    const variant = await workshop.build({ signer: keys.rsa, schemes: { v1: false, v3: false } });
    const bytes = new Uint8Array(variant.bytes);
    const magicAt = Buffer.from(bytes).indexOf("APK Sig Block 42");
    expect(magicAt).toBeGreaterThan(0);
    // The size in the footer, doubled: the block would start before the file.
    const view = new DataView(bytes.buffer);
    view.setBigUint64(magicAt - 8, view.getBigUint64(magicAt - 8, true) * 1000n, true);
    const error = await refusal(inspectBytes(workshop, bytes, "bad-block.apk"));
    expect(error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    expect(error.message).toContain("signature");
  });
});

describe("the binary XML reader on hostile bytes", () => {
  let manifest: Uint8Array;
  beforeAll(async () => {
    const path = join(FIXTURES, "tinyapp-v1v2v3.apk");
    const directory = await inspectZip(path, Bun.file(path).size);
    manifest = await readZipEntry(path, directory.entries.find((e) => e.name === "AndroidManifest.xml")!);
  });

  test("random corruption of a real manifest either reads or throws BinaryXmlError — nothing else", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.option(fc.nat(), { nil: undefined }),
        (edits, cut) => {
          const bytes = new Uint8Array(manifest);
          for (const { at, value } of edits) bytes[at % bytes.length] = value;
          const input = cut === undefined ? bytes : bytes.subarray(0, cut % (bytes.length + 1));
          try {
            const facts = manifestFacts(input);
            expect(typeof facts.packageName).toBe("string");
          } catch (error) {
            if (!(error instanceof BinaryXmlError)) throw error;
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
