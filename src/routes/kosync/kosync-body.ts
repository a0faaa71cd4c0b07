// The body of KOReader's progress push (PUT /kosync/syncs/progress): the official server's
// fields, each bounded; undefined when one it requires is missing or malformed (its 2003).
import type { KoreaderPush } from "../../services/reading-progress";

const MAX_PROGRESS = 8192;
const MAX_NAME = 100;
const MAX_DOCUMENT = 128;

function boundedString(value: unknown, max: number, min = 1): value is string {
  return typeof value === "string" && value.length >= min && value.length <= max;
}

export function parseKoreaderPush(text: string): KoreaderPush | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const { document, progress, percentage, device, device_id: deviceId } = body as Record<string, unknown>;
  if (!boundedString(document, MAX_DOCUMENT)) return undefined;
  if (!boundedString(progress, MAX_PROGRESS)) return undefined;
  if (typeof percentage !== "number" || !Number.isFinite(percentage) || percentage < 0 || percentage > 1)
    return undefined;
  if (!boundedString(device, MAX_NAME)) return undefined;
  // KOReader always sends its device id; an older client without one is still heard.
  if (deviceId !== undefined && !boundedString(deviceId, MAX_NAME, 0)) return undefined;
  return {
    // KOReader's digest is lower-case hex; a client that shouts it means the same file.
    document: document.toLowerCase(),
    progress,
    percentage,
    device,
    deviceId: deviceId ?? "",
  };
}
