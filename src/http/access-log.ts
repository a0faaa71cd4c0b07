// The access log and request metrics (README, Health, logs and metrics): one JSON line per request,
// written when its body's last byte was handed to the server, and the http_* metrics and bookdist_*
// counters a request's answer says something about. The path is logged without its query (codes,
// names, presigned signatures); no header, token or body is.
import type { Context } from "hono";
import {
  countDownloadBytes,
  countLogin,
  countRedemption,
  countRegistration,
  countThrottled,
  type Outcome,
  observeRequest,
} from "../metrics/registry";
import { countDownload } from "../services/dashboard";
import { clientAddressOf } from "./client-address";
import { type DeliveryServer, watchDelivery } from "./file-delivery";
import { isSentFile } from "./file-response";
import { replaceResponse } from "./library-internals";
import { isStreamedList, markStreamedList } from "./list-stream";
import { measureBody } from "./measured-body";
import type { OperationNames } from "./operation-names";
import { isStreamedBody } from "./streamed-body";
import type { AppBindings } from "./types";

/** Operations whose answers are counted by outcome (bookdist_logins_total and its kin). */
const OUTCOME_COUNTERS: Record<string, (outcome: Outcome) => void> = {
  login: countLogin,
  register: countRegistration,
  redeemActivationQrCode: countRedemption,
};

/**
 * The downloads the console's dashboard charts per day (README "Console"): a book's archive or an
 * APK, answered whole, from its first byte, or as a redirect to the bucket (S3_DOWNLOADS=redirect).
 */
const CHARTED_DOWNLOADS: ReadonlySet<string> = new Set([
  "downloadBookVersion",
  "getNewestBookVersion",
  "downloadOpdsFile",
  "downloadApk",
  "downloadActiveBookapp",
  "downloadActiveLauncher",
]);

function isChartedDownload(operationId: string | undefined, method: string, response: Response): boolean {
  if (operationId === undefined || method !== "GET" || !CHARTED_DOWNLOADS.has(operationId)) return false;
  if (response.status === 200 || response.status === 302) return true;
  return response.status === 206 && (response.headers.get("content-range") ?? "").startsWith("bytes 0-");
}

function outcomeOf(status: number): Outcome | undefined {
  if (status === 429) return "throttled";
  if (status < 300) return "success";
  if (status < 500) return "failure";
  return undefined; // a 5xx is the service's failure, not the client's: http_requests_total has it
}

/** Bun's server, which sends a file body itself; absent under `app.request()` in tests. */
function deliveryServerOf(env: unknown): DeliveryServer | undefined {
  return typeof (env as Partial<DeliveryServer> | undefined)?.requestIP === "function"
    ? (env as DeliveryServer)
    : undefined;
}

/**
 * Records the request `c` answered: now for a body already in memory, when the last byte of a
 * streamed body went (a list, a CSV, a sheet), and when a file Bun sends itself (sendfile) was
 * sent to its end or cut off by the client (file-delivery.ts): its bytes are then its
 * Content-Length, or unknown for one cut off (Bun tells no count; the line says `aborted`).
 * Replaces `c.res` when it has to measure or read its body.
 */
export function recordRequest(
  c: Context<AppBindings>,
  operations: OperationNames,
  started: number,
): Promise<void> | undefined {
  const { logger } = c.get("deps");
  const { operation, route } = operations.answered(c);
  const method = c.req.method;
  const response = c.res;
  const status = response.status;

  /** `bytes` undefined: not known (a file Bun sent by sendfile until the client went away). */
  /** `client`: read before the request ended, after which Bun no longer knows its peer. */
  const finish = (
    bytes: number | undefined,
    complete: boolean,
    endedAt = performance.now(),
    client?: string,
  ) => {
    const seconds = (endedAt - started) / 1000;
    // The client went away before the last byte (rather than the body failing).
    const aborted = !complete && c.req.raw.signal.aborted;
    observeRequest(method, route, status, seconds);
    if (
      bytes !== undefined &&
      response.headers.get("accept-ranges") === "bytes" &&
      (status === 200 || status === 206)
    )
      countDownloadBytes(bytes);
    if (status === 429) countThrottled(operation?.operationId ?? route);
    const outcome = outcomeOf(status);
    if (operation !== undefined && outcome !== undefined) OUTCOME_COUNTERS[operation.operationId]?.(outcome);
    if (!logger.enabled("info")) return;
    // Undefined fields (no operation, no user) are left out of the line.
    logger.info("request", {
      requestId: c.get("requestId"),
      clientRequestId: c.get("clientRequestId"),
      method,
      path: c.req.path,
      route: operation?.route,
      operationId: operation?.operationId,
      status,
      bytes,
      ...(complete ? {} : { incomplete: true }),
      ...(aborted ? { aborted: true } : {}),
      durationMs: Math.round(seconds * 10_000) / 10,
      client: client ?? clientAddressOf(c),
      user: c.get("principal")?.userUuid,
    });
  };

  if (isChartedDownload(operation?.operationId, method, response)) {
    const { db, clock } = c.get("deps");
    countDownload(db, logger, clock.now());
  }
  const noBody = method === "HEAD" || status === 204 || status === 304;
  const declared = response.headers.get("content-length");
  if (isStreamedList(response) || isStreamedBody(response)) {
    const measured = measureBody(response, finish);
    replaceResponse(c, isStreamedList(response) ? markStreamedList(measured) : measured);
  } else if (noBody) {
    finish(0, true);
  } else if (declared !== null) {
    // A file (sendfile) or a body that says its size; its body is not touched, which would turn
    // a file into a stream and lose sendfile and Content-Length.
    const server = deliveryServerOf(c.env);
    if (server !== undefined && isSentFile(response)) {
      const client = logger.enabled("info") ? clientAddressOf(c) : undefined;
      watchDelivery(server, c.req.raw, (complete, endedAt) =>
        finish(complete ? Number(declared) : undefined, complete, endedAt, client),
      );
    } else finish(Number(declared), true);
  } else if (!logger.enabled("info")) {
    // Only the log line needs an in-memory body's size.
    finish(0, true);
  } else {
    return readInMemoryBody(c, response, finish);
  }
  return undefined;
}

/**
 * Every other body of the app is built in memory (JSON, a PNG symbol, a page): reading it back
 * copies bytes already held (about a microsecond for a page of JSON), and a body of known size
 * keeps its Content-Length.
 */
async function readInMemoryBody(
  c: Context<AppBindings>,
  response: Response,
  finish: (bytes: number, complete: boolean) => void,
): Promise<void> {
  const body = await response.arrayBuffer();
  replaceResponse(c, new Response(body, response));
  finish(body.byteLength, true);
}
