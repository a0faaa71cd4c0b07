// The baselines, run as their own process: a bare Bun.serve that sends one file
// (`new Response(Bun.file(path))`, Bun's sendfile path) and one that pipes a request body to disk.
const [mode, port, path] = process.argv.slice(2);
if (!mode || !port || !path) throw new Error("usage: bare-servers.ts download|upload PORT PATH");

Bun.serve({
  port: Number(port),
  hostname: "127.0.0.1",
  maxRequestBodySize: 4 * 1024 ** 3,
  idleTimeout: 255,
  async fetch(request) {
    if (mode === "download") return new Response(Bun.file(path));
    if (!request.body) return new Response("no body", { status: 400 });
    // Chunk by chunk to the file, as the service does, so neither side holds the body in memory.
    const writer = Bun.file(`${path}.${crypto.randomUUID()}`).writer();
    let written = 0;
    for await (const chunk of request.body) {
      writer.write(chunk);
      written += chunk.byteLength;
    }
    await writer.end();
    return Response.json({ written });
  },
});
console.log("ready");
