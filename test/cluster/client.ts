// HTTP as the cluster test's clients speak it: JSON calls with a token, each client behind its
// own (loopback) X-Forwarded-For address, multipart uploads that trickle so a kill finds them in
// flight, and the instance that answered (HAProxy's X-Served-By).

export interface Answer<T = any> {
  status: number;
  body: T;
  /** The instance HAProxy sent the request to; undefined when called directly. */
  servedBy?: string;
}

export interface CallOptions {
  token?: string;
  json?: unknown;
  /** The client's own address, as a proxy in front of the balancer would report it. */
  forwardedFor?: string;
  body?: ReadableStream<Uint8Array> | string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export async function call<T = any>(
  base: string,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  if (options.forwardedFor) headers["X-Forwarded-For"] = options.forwardedFor;
  if (options.json !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    body: options.json !== undefined ? JSON.stringify(options.json) : options.body,
    signal: options.signal,
  });
  const text = await response.text();
  let body: any = text;
  if ((response.headers.get("content-type") ?? "").includes("json") && text !== "") body = JSON.parse(text);
  return { status: response.status, body, servedBy: response.headers.get("x-served-by") ?? undefined };
}

/** A call that must answer `status`; anything else is thrown with its body. */
export async function expectStatus<T = any>(
  status: number,
  base: string,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<T> {
  const answer = await call<T>(base, method, path, options);
  if (answer.status !== status) {
    const body = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
    throw new Error(`${method} ${path}: expected ${status}, got ${answer.status} ${body.slice(0, 200)}`);
  }
  return answer.body;
}

/** A distinct loopback address per client number (127.0.1.1, 127.0.1.2, …). */
export function clientAddress(n: number): string {
  return `127.0.${1 + Math.floor(n / 250)}.${1 + (n % 250)}`;
}

export function sha256Hex(bytes: Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
}

export async function downloadSha256(
  base: string,
  path: string,
  token: string,
): Promise<{ status: number; sha256: string }> {
  const response = await fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { status: response.status, sha256: sha256Hex(bytes) };
}

/**
 * A multipart body with one part `file`, sent in chunks with a pause between them, so that an
 * upload takes a while and a kill -9 meets uploads in the middle of their bytes.
 */
export function tricklingUpload(
  file: Uint8Array,
  filename: string,
  contentType: string,
  options: { chunkBytes: number; pauseMs: number },
): { body: ReadableStream<Uint8Array>; contentType: string } {
  const boundary = `cluster-${crypto.randomUUID()}`;
  const encoder = new TextEncoder();
  const head = encoder.encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${contentType}\r\n\r\n`,
  );
  const tail = encoder.encode(`\r\n--${boundary}--\r\n`);
  let offset = 0;
  let sentHead = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!sentHead) {
        sentHead = true;
        controller.enqueue(head);
        return;
      }
      if (offset < file.byteLength) {
        await Bun.sleep(options.pauseMs);
        const end = Math.min(file.byteLength, offset + options.chunkBytes);
        controller.enqueue(file.subarray(offset, end));
        offset = end;
        return;
      }
      controller.enqueue(tail);
      controller.close();
    },
  });
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}
