// The worker thread behind qr-png.ts: rasterises QR symbols to PNG off the server's event loop.
// A 2048 px symbol is ~0.2 s of synchronous work inside the qrcode package, which cannot be cut
// into slices from outside; here it holds up only this thread.
import QRCode from "qrcode";
import type { PngRequest, PngResult } from "./qr-png";

declare const self: Worker;

self.onmessage = async (event: MessageEvent<PngRequest>) => {
  const { id, text, options } = event.data;
  try {
    // A copy that owns its memory can be handed over to the main thread instead of copied again.
    const png = new Uint8Array(await QRCode.toBuffer(text, { ...options, type: "png" }));
    self.postMessage({ id, png } satisfies PngResult, [png.buffer]);
  } catch (error) {
    self.postMessage({
      id,
      error: error instanceof Error ? error.message : String(error),
    } satisfies PngResult);
  }
};
