// QR symbols as PNG, rendered on a worker thread (qr-png-worker.ts). The worker takes one symbol
// at a time, so at most one raster is being made per instance whatever the number of requests:
// the others wait their turn in its queue while the event loop and the other core stay free.

/** What the qrcode package is told besides the text: error correction, quiet zone and width. */
export interface PngOptions {
  errorCorrectionLevel: "L" | "M" | "Q" | "H";
  margin: number;
  width: number;
}

export interface PngRequest {
  id: number;
  text: string;
  options: PngOptions;
}

export type PngResult = { id: number; png: Uint8Array<ArrayBuffer> } | { id: number; error: string };

interface Pending {
  resolve(png: Uint8Array<ArrayBuffer>): void;
  reject(error: Error): void;
}

let worker: Worker | undefined;
const pending = new Map<number, Pending>();
let lastId = 0;

/** The symbol of `text` as PNG bytes, exactly as `QRCode.toBuffer(text, { ...options, type: "png" })` makes them. */
export function renderPng(text: string, options: PngOptions): Promise<Uint8Array<ArrayBuffer>> {
  const id = ++lastId;
  const result = new Promise<Uint8Array<ArrayBuffer>>((resolve, reject) =>
    pending.set(id, { resolve, reject }),
  );
  const thread = pngWorker();
  thread.ref();
  thread.postMessage({ id, text, options } satisfies PngRequest);
  return result;
}

/** Started on first use: a process that never renders a PNG needs no thread for it. */
function pngWorker(): Worker {
  if (worker) return worker;
  const thread = new Worker(new URL("./qr-png-worker.ts", import.meta.url));
  thread.onmessage = (event: MessageEvent<PngResult>) => {
    const result = event.data;
    const waiting = pending.get(result.id);
    pending.delete(result.id);
    // An idle worker must not keep the process alive (tests, the admin CLI, a SIGTERM drain).
    if (pending.size === 0) thread.unref();
    if ("png" in result) waiting?.resolve(result.png);
    else waiting?.reject(new Error(`QR PNG: ${result.error}`));
  };
  // A worker that died takes its requests with it; the next request starts a fresh one.
  thread.onerror = (event) => {
    if (worker === thread) worker = undefined;
    const failed = [...pending.values()];
    pending.clear();
    for (const waiting of failed) waiting.reject(new Error(`QR PNG worker failed: ${event.message}`));
    thread.terminate();
  };
  worker = thread;
  return thread;
}
