// The console's static files (README "Console": same-origin, never inline): htmx 2 from node_modules,
// the upload-progress script and the style sheet from assets/. Each is served at a path that
// names a digest of its bytes, so a new version is a new URL; they are read once at start-up
// (tens of KiB) and answered from memory, before any session check (the sign-in page needs them).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Hono } from "hono";
import type { AppBindings } from "../http/types";

interface Asset {
  url: string;
  type: string;
  bytes: Uint8Array;
}

const STATIC_BASE = "/console/static";

function asset(name: string, path: string, type: string): Asset {
  const bytes = new Uint8Array(readFileSync(path));
  const digest = new Bun.CryptoHasher("sha256").update(bytes).digest("hex").slice(0, 16);
  return { url: `${STATIC_BASE}/${digest}/${name}`, type, bytes };
}

const here = import.meta.dir;

/** The console's files by name: `assets.htmx.url` is what a page links. */
export const assets = {
  htmx: asset(
    "htmx.min.js",
    Bun.resolveSync("htmx.org/dist/htmx.min.js", here),
    "text/javascript; charset=UTF-8",
  ),
  upload: asset("upload.js", join(here, "assets", "upload.js"), "text/javascript; charset=UTF-8"),
  css: asset("console.css", join(here, "assets", "console.css"), "text/css; charset=UTF-8"),
} as const;

/** GET (and HEAD) of each file at its versioned path; any other path under /static is a 404. */
export function mountAssets(router: Hono<AppBindings>): void {
  for (const file of Object.values(assets)) {
    const path = file.url.slice("/console".length);
    router.get(path, (c) =>
      c.body(file.bytes as Uint8Array<ArrayBuffer>, 200, { "Content-Type": file.type }),
    );
  }
}
