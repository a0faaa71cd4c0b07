// Content negotiation of `GET /opds` (README, Reading apps): OPDS 2.0 for a client that asks for
// `application/opds+json` at least as much as for Atom; Atom otherwise, and for `*/*`.
import { OPDS_JSON } from "../../opds/catalog";

const ATOM = "application/atom+xml";

/** The q of each media range, read in one pass over the header (linear in its length). */
function qualities(header: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const range of header.split(",")) {
    const [type = "", ...params] = range.split(";");
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split("=");
      if (name?.trim().toLowerCase() === "q") {
        const parsed = Number(value?.trim());
        q = Number.isFinite(parsed) ? parsed : 0;
      }
    }
    const key = type.trim().toLowerCase();
    found.set(key, Math.max(found.get(key) ?? 0, q));
  }
  return found;
}

export function acceptsOpds2(header: string | undefined): boolean {
  if (!header) return false;
  const q = qualities(header);
  const json = q.get(OPDS_JSON) ?? 0;
  return json > 0 && json >= (q.get(ATOM) ?? 0);
}
