// QR PNGs made on the worker thread: the very bytes the qrcode package makes in the caller's
// thread, each answer to its own request when many are in flight, and a symbol that cannot be made
// fails its own request only.
import { describe, expect, test } from "bun:test";
import QRCode from "qrcode";
import { renderPng } from "../../src/print/qr-png";

const options = { errorCorrectionLevel: "M", margin: 4 } as const;

describe("QR PNGs on a worker thread", () => {
  test("the same bytes as QRCode.toBuffer, for small and large symbols", async () => {
    for (const width of [64, 512, 2048]) {
      const text = `https://books.example.com/a/7KQ4-M2XD-9RTF-0BH${width % 10}`;
      const expected = await QRCode.toBuffer(text, { ...options, type: "png", width });
      const png = await renderPng(text, { ...options, width });
      expect(Buffer.from(png).equals(expected)).toBe(true);
    }
  });

  test("many in flight: each request gets its own symbol", async () => {
    const texts = Array.from({ length: 12 }, (_, i) => `CODE-${i}`);
    const pngs = await Promise.all(texts.map((text) => renderPng(text, { ...options, width: 128 })));
    for (const [i, text] of texts.entries()) {
      const expected = await QRCode.toBuffer(text, { ...options, type: "png", width: 128 });
      expect(Buffer.from(pngs[i]!).equals(expected)).toBe(true);
    }
  });

  test("a payload no symbol can hold fails that request; the next one is made", async () => {
    const tooLong = "x".repeat(5000);
    const [failed, fine] = await Promise.allSettled([
      renderPng(tooLong, { ...options, width: 128 }),
      renderPng("STILL-FINE", { ...options, width: 128 }),
    ]);
    expect(failed.status).toBe("rejected");
    expect(String((failed as PromiseRejectedResult).reason)).toContain("QR PNG");
    expect(fine.status).toBe("fulfilled");
    const expected = await QRCode.toBuffer("STILL-FINE", { ...options, type: "png", width: 128 });
    expect(Buffer.from((fine as PromiseFulfilledResult<Uint8Array>).value).equals(expected)).toBe(true);
  });
});
