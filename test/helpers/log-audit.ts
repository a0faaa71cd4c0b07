// The log of a whole test run, audited (README, Health, logs and metrics: no token, password, query
// secret or presigned signature in any line), and every answer of the in-process test app searched
// for a private key (README "Offline entitlements": no signing key leaves the server). Every in-process app logs through `auditedLogger`
// unless a test gives its own logger, and every real server the helpers start has its output fed
// here line by line; the preload's afterAll fails the run if any line held a secret, naming the
// source and the kind of secret, never the secret itself.
import { createLogger, type Logger } from "../../src/lib/logger";

/** Secrets the run knows by value: signing secrets, fixture passwords, object-store keys. */
const knownSecrets = new Set<string>([
  "test-secret-that-is-long-enough-for-hs256",
  "real-server-test-secret-0123456789-abcdef",
  "spawned-server-secret-0123456789-abcdef",
  "correct horse battery staple",
]);

/** Secrets recognised by their shape, whoever made them. */
const SHAPES: Array<[kind: string, pattern: RegExp]> = [
  ["a JWT", /eyJ[\w-]{8,}\.eyJ[\w-]{8,}/],
  ["a Bearer credential", /Bearer\s+\S/i],
  ["a Basic credential", /Basic\s+[A-Za-z0-9+/]{8,}={0,2}/],
  ["an Authorization header", /authorization/i],
  ["a password field", /"(?:password|newPassword|oldPassword)"\s*:/i],
  ["a presigned URL's signature", /X-Amz-(?:Signature|Credential)|[?&]Signature=/i],
  ["a versioned link's query secret", /[?&]sha256=/i],
  // src/services/activation-code.ts: four groups of four of Crockford's alphabet.
  ["an activation code", /\b[0-9A-HJKMNP-TV-Z]{4}(?:-[0-9A-HJKMNP-TV-Z]{4}){3}\b/],
];

/**
 * Offline entitlements' signing keys (README "Offline entitlements"): the private member of an
 * OKP JWK, or an Ed25519 PKCS #8 key (its DER prefix, in base64 or hex). The only kinds a response
 * is searched for: answers carry session tokens and a device token by design, never a private key.
 */
const PRIVATE_KEY_SHAPES: Array<[kind: string, pattern: RegExp]> = [
  ["a private JWK", /"d"\s*:\s*"[A-Za-z0-9_-]{20,}/],
  ["an Ed25519 private key", /MC4CAQAwBQYDK2VwBCIEI|302e020100300506032b657004220420/i],
];
SHAPES.push(...PRIVATE_KEY_SHAPES);

const findings: string[] = [];
let audited = 0;

/** A secret the run made (a generated password, a bucket's key) that no line may hold. */
export function registerSecret(value: string): void {
  if (value.length >= 8) knownSecrets.add(value);
}

/** What kinds of secret `line` holds (none: []). */
export function secretKindsIn(line: string): string[] {
  const kinds = SHAPES.filter(([, pattern]) => pattern.test(line)).map(([kind]) => kind);
  for (const secret of knownSecrets) {
    if (line.includes(secret)) kinds.push(`a known secret (${secret.length} characters)`);
  }
  return kinds;
}

export function auditLogLine(line: string, source: string): void {
  if (line.length === 0) return;
  audited++;
  for (const kind of secretKindsIn(line)) findings.push(`${source}: ${kind} in a log line`);
}

/** Splits what a process wrote into lines; returns the unfinished tail to prepend to the next chunk. */
export function auditLogText(pending: string, source: string): string {
  const parts = pending.split("\n");
  const tail = parts.pop() ?? "";
  for (const line of parts) auditLogLine(line, source);
  return tail;
}

/** The in-process apps' default logger: info level, every line audited and then dropped. */
export const auditedLogger: Logger = createLogger("info", (line) => auditLogLine(line, "in-process app"));

/**
 * A field of an audit event's `changes` that names a secret (README "Audit log": the auditable
 * fields are listed per record, so none of these may ever appear). A file is named by its sha256,
 * which is no secret: `coverSha256` passes, `passwordHash` does not.
 */
const SECRET_FIELD = /password|token|secret|hash|salt|^code$|bytes|content/i;

/** What kinds of secret one audit event (as stored: its `changes` JSON text) holds (none: []). */
export function secretKindsInAuditEvent(event: { changes: string; [column: string]: unknown }): string[] {
  const kinds = secretKindsIn(JSON.stringify(event));
  const changes = JSON.parse(event.changes) as Record<string, unknown>;
  for (const field of Object.keys(changes))
    if (SECRET_FIELD.test(field)) kinds.push(`a secret's field (${field}) in changes`);
  return kinds;
}

let auditedEvents = 0;

/** Every audit event of a test database, read before it is dropped (test/helpers/databases.ts). */
export function auditAuditEvent(event: { changes: string; action: string }, source: string): void {
  auditedEvents++;
  for (const kind of secretKindsInAuditEvent(event))
    findings.push(`${source}: ${kind} in an audit event (${event.action})`);
}

/** What kinds of private key `text` holds (none: []). */
export function privateKeyKindsIn(text: string): string[] {
  return PRIVATE_KEY_SHAPES.filter(([, pattern]) => pattern.test(text)).map(([kind]) => kind);
}

let auditedResponses = 0;

/**
 * How much of one response body is searched: the entitlements token (getEntitlements) of a
 * reader with many books is about 1.2 MiB, and a key would come early in any answer that held one.
 */
export const RESPONSE_AUDIT_BOUND = 2 * 1024 * 1024;

/** A body of these types is text a key could be written in; files, images and archives are not read. */
const TEXTUAL = /^\s*(?:text\/|application\/(?:[\w.-]+\+)?(?:json|xml|jose|x-ndjson|javascript)\b)/i;

/**
 * Text the app writes while it is sent whose mark the request frame does not keep outside the app
 * (src/http/access-log.ts re-marks only streamed lists): the codes.csv export. Every other
 * unmarked text body is built in memory (access-log.ts, readInMemoryBody).
 */
const STREAMED_TYPE = /^\s*text\/csv\b/i;

/** What the scan keeps of the text before a chunk, so a key split across two chunks is still seen. */
const OVERLAP = 256;

/** The marks a response carries by identity (src/http/response-mark.ts), kept on a rewrapped one. */
export interface IdentityMarks {
  has(response: Response): boolean;
  mark(response: Response): Response;
}

/**
 * Searches one response the test app gave a test for a private key, without changing what the
 * test reads. A body made at once (a JSON answer, a problem) is read from `clone()` up to the bound
 * before the test sees the response. A body produced while it is read (a marked streamed list, a
 * CSV export) is not read ahead, which would pull the whole stream into the test's unread half of a
 * tee: it is given back as the same bytes through a pass-through that searches each chunk as the
 * test reads it, under the same status, headers and marks.
 */
export async function auditResponse(
  response: Response,
  source: string,
  streamedMarks: IdentityMarks[],
  /** Where a finding goes: the run's findings, or a test's own list (test/ops/log-audit.test.ts). */
  found: (kind: string) => void = (kind) => findings.push(`${source}: ${kind} in a response`),
): Promise<Response> {
  if (response.body === null) return response;
  const type = response.headers.get("content-type");
  if (type !== null && !TEXTUAL.test(type)) return response;
  const marks = streamedMarks.filter((marks) => marks.has(response));
  if (marks.length === 0 && !STREAMED_TYPE.test(type ?? "")) {
    auditedResponses++;
    const text = await readUpTo(response.clone().body!, RESPONSE_AUDIT_BOUND);
    for (const kind of privateKeyKindsIn(text)) found(kind);
    return response;
  }
  const decoder = new TextDecoder();
  let seen = 0;
  let tail = "";
  const scan = (text: string) => {
    if (seen >= RESPONSE_AUDIT_BOUND) return;
    seen += text.length;
    const window = tail + text;
    for (const kind of privateKeyKindsIn(window)) found(kind);
    tail = window.slice(-OVERLAP);
  };
  // No pipe (pipeThrough keeps a chunk queued ahead and cancels upstream later): each read of the
  // test is one read of the app's body, and a cancel reaches it at once.
  const reader = response.body.getReader();
  const searched = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) {
          scan(decoder.decode());
          auditedResponses++;
          controller.close();
          return;
        }
        scan(decoder.decode(value, { stream: true }));
        controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
  const rewrapped = new Response(searched, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  for (const mark of marks) mark.mark(rewrapped);
  return rewrapped;
}

/** At least the first `bound` characters of a body (UTF-16 units), the rest cancelled unread. */
async function readUpTo(body: ReadableStream<Uint8Array>, bound: number): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (text.length < bound) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  return text;
}

export function logAuditReport(): {
  audited: number;
  auditedEvents: number;
  auditedResponses: number;
  findings: string[];
} {
  return { audited, auditedEvents, auditedResponses, findings: [...new Set(findings)] };
}
