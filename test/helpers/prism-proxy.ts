// Stoplight Prism as a validating proxy in front of a server (`prism proxy <document> <upstream>
// --errors`), started from node_modules with a document file, so it fetches nothing. Between
// Prism and the server sits a recorder that passes every request and answer through unchanged
// and keeps the server's own answer by the request's X-Request-Id: with --errors Prism replaces
// an answer that breaks the document by its own error, and a test still needs what the server said.
import { join } from "node:path";
import type { Server, Subprocess } from "bun";
import { freePort, projectRoot } from "./spawn-server";

/** What the server answered one request (as the recorder saw it on its way to Prism). */
export interface UpstreamAnswer {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
}

export interface PrismProxy {
  /** Prism's URL, e.g. http://127.0.0.1:41234 */
  url: string;
  process: Subprocess;
  /** The server's answer to the request sent with this X-Request-Id, if it reached the server. */
  upstream(requestId: string): UpstreamAnswer | undefined;
  /** Everything Prism logged so far. */
  output(): string;
  stop(): Promise<void>;
}

export async function startPrismProxy(documentFile: string, upstreamUrl: string): Promise<PrismProxy> {
  const answers = new Map<string, UpstreamAnswer>();
  const recorder: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const headers = new Headers(request.headers);
      headers.delete("host");
      const response = await fetch(`${upstreamUrl}${url.pathname}${url.search}`, {
        method: request.method,
        headers,
        body: request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer(),
        redirect: "manual",
        decompress: false,
      });
      const bytes = new Uint8Array(await response.arrayBuffer());
      const id = request.headers.get("x-request-id");
      if (id) answers.set(id, { status: response.status, headers: response.headers, bytes });
      return new Response(response.status === 304 || request.method === "HEAD" ? null : bytes, {
        status: response.status,
        headers: response.headers,
      });
    },
  });

  const port = freePort();
  const child = Bun.spawn(
    [
      join(projectRoot, "node_modules", ".bin", "prism"),
      "proxy",
      documentFile,
      `http://127.0.0.1:${recorder.port}`,
      "--errors",
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
    ],
    { cwd: projectRoot, stdin: "ignore", stdout: "pipe", stderr: "pipe" },
  );
  let output = "";
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) output += decoder.decode(chunk, { stream: true });
  };
  void drain(child.stdout);
  void drain(child.stderr);

  const stop = async () => {
    child.kill("SIGTERM");
    await child.exited;
    recorder.stop(true);
  };
  const deadline = Date.now() + 30_000;
  while (!output.includes("Prism is listening")) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`prism did not start listening (exit ${child.exitCode}):\n${output}`);
    }
    await Bun.sleep(100);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    process: child,
    upstream: (id) => answers.get(id),
    output: () => output,
    stop,
  };
}
