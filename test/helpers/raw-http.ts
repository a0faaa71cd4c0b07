// HTTP spoken by hand over a TCP socket, for requests fetch() will not send: HTTP/1.0 without
// Host (a load balancer's health check), a forged Host, a body that trickles in byte by byte.
import { connect, type Socket } from "node:net";

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Parses what the server sent up to the connection's end. */
export function parseRawResponse(text: string): RawResponse {
  const end = text.indexOf("\r\n\r\n");
  const head = end < 0 ? text : text.slice(0, end);
  const [statusLine = "", ...lines] = head.split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return {
    status: Number(/^HTTP\/\d\.\d (\d{3})/.exec(statusLine)?.[1] ?? 0),
    headers,
    body: end < 0 ? "" : text.slice(end + 4),
  };
}

/** Sends `request` as it stands and reads until the server closes the connection. */
export function rawRequest(port: number, request: string, timeoutMs = 10_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(`no complete answer within ${timeoutMs} ms: ${Buffer.concat(chunks).toString("latin1")}`),
      );
    }, timeoutMs);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(parseRawResponse(Buffer.concat(chunks).toString("utf8")));
    });
    socket.write(request);
  });
}

/** A connection kept open, for writing a request slowly and seeing when the server answers or hangs up. */
export function openSocket(port: number): Promise<{
  socket: Socket;
  /** Everything received so far. */
  received(): string;
  /** Resolves when the server closes the connection (or it errors), with the time. */
  closed: Promise<number>;
}> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
    });
    const closed = new Promise<number>((resolveClosed) => {
      socket.on("close", () => resolveClosed(Date.now()));
    });
    socket.on("error", () => {});
    socket.once("connect", () => resolve({ socket, received: () => text, closed }));
    socket.once("error", reject);
  });
}
