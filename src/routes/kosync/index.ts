// KOReader's progress sync (README "Reading progress"), at /kosync: the protocol of KOReader's
// kosync plugin and the official koreader-sync-server, not this API's — its own headers
// (`x-auth-user`, `x-auth-key`: the lower-case hex MD5 of a device token with `sync`), its own
// `{code, message}` errors, and answers typed `application/json` exactly, since KOReader's client
// decodes no other type (not even with a charset). Outside the OpenAPI document: no operation
// there authenticates this way or answers these errors (README "Reading progress").

import type { Context } from "hono";
import { Hono } from "hono";
import type { Principal } from "../../auth/principal";
import { readBoundedBytes } from "../../http/bounded-body";
import type { AppBindings } from "../../http/types";
import { AppError } from "../../lib/problems";
import { principalFromDeviceTokenMd5 } from "../../services/device-tokens";
import { pullKoreaderProgress, pushKoreaderProgress } from "../../services/reading-progress";
import { parseKoreaderPush } from "./kosync-body";

export const KOSYNC_BASE = "/kosync";
/** A progress push is a few hundred bytes; anything much larger is no KOReader's. */
export const KOSYNC_MAX_BODY_BYTES = 16 * 1024;

/** The official server's errors that this one answers. */
export const KOSYNC_ERRORS = {
  unknown: { status: 502, code: 2000, message: "Unknown server error." },
  unauthorized: { status: 401, code: 2001, message: "Unauthorized" },
  invalidRequest: { status: 403, code: 2003, message: "Invalid request" },
  registrationDisabled: { status: 402, code: 2005, message: "User registration is disabled." },
} as const;

type KosyncError = (typeof KOSYNC_ERRORS)[keyof typeof KOSYNC_ERRORS];

/** JSON typed `application/json` and nothing more: KOReader's client decodes no other type. */
function kosyncJson(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json", "Cache-Control": "no-store", ...headers },
  });
}

function kosyncError(error: KosyncError, headers?: Record<string, string>): Response {
  return kosyncJson({ code: error.code, message: error.message }, error.status, headers);
}

class KosyncFailure extends Error {
  constructor(
    readonly error: KosyncError,
    readonly headers?: Record<string, string>,
  ) {
    super(error.message);
  }
}

/** The caller of `x-auth-user` and `x-auth-key`, or a 2001. */
async function kosyncPrincipal(c: Context<AppBindings>): Promise<Principal> {
  const userName = c.req.header("x-auth-user");
  const key = c.req.header("x-auth-key");
  if (!userName || !key || userName.length > 320) throw new KosyncFailure(KOSYNC_ERRORS.unauthorized);
  const { db, store, clock, jwtSecret } = c.get("deps");
  const { deviceTokenCache, accountCheck } = c.get("runtime");
  const now = clock.now();
  // Keyed apart from HTTP Basic's entries: a NUL cannot appear in a header.
  const cacheKey = `kosync\u0000${userName}\u0000${key}`;
  const cached = deviceTokenCache.get(cacheKey, now.getTime());
  const principal = await principalFromDeviceTokenMd5({ db, store, jwtSecret, accountCheck }, key, {
    userName,
    scope: "sync",
    now,
    cached,
  });
  if (!principal) throw new KosyncFailure(KOSYNC_ERRORS.unauthorized);
  if (principal !== cached) deviceTokenCache.set(cacheKey, principal, now.getTime());
  return principal;
}

/** Every kosync answer, errors included, in the protocol's shape. */
function kosync(
  handler: (c: Context<AppBindings>) => Promise<Response>,
): (c: Context<AppBindings>) => Promise<Response> {
  return async (c) => {
    c.set("exactContentType", true);
    try {
      return await handler(c);
    } catch (error) {
      if (error instanceof KosyncFailure) return kosyncError(error.error, error.headers);
      if (error instanceof AppError) {
        if (error.code === "PAYLOAD_TOO_LARGE") return kosyncError(KOSYNC_ERRORS.invalidRequest);
        if (error.code === "SERVICE_UNAVAILABLE") {
          // The store cannot be asked: KOReader retries later; the status says it is passing.
          return kosyncJson(
            { code: KOSYNC_ERRORS.unknown.code, message: KOSYNC_ERRORS.unknown.message },
            503,
            {
              "Retry-After": "30",
            },
          );
        }
      }
      throw error;
    }
  };
}

export function kosyncRouter(): Hono<AppBindings> {
  const router = new Hono<AppBindings>();

  // Accounts are the shop's, and device tokens are made in the account: no registration here.
  router.post(
    "/users/create",
    kosync(async () => kosyncError(KOSYNC_ERRORS.registrationDisabled)),
  );

  router.get(
    "/users/auth",
    kosync(async (c) => {
      await kosyncPrincipal(c);
      return kosyncJson({ authorized: "OK" });
    }),
  );

  router.put(
    "/syncs/progress",
    kosync(async (c) => {
      const principal = await kosyncPrincipal(c);
      const bytes = await readBoundedBytes(c.req.raw, KOSYNC_MAX_BODY_BYTES);
      const push = parseKoreaderPush(new TextDecoder().decode(bytes));
      if (!push) throw new KosyncFailure(KOSYNC_ERRORS.invalidRequest);
      const { db, clock } = c.get("deps");
      const now = clock.now();
      // A document that is no version of a book the caller holds is answered alike, and not kept.
      await pushKoreaderProgress(db, principal, push, now);
      return kosyncJson({ document: push.document, timestamp: Math.floor(now.getTime() / 1000) });
    }),
  );

  router.get(
    "/syncs/progress/:document",
    kosync(async (c) => {
      const principal = await kosyncPrincipal(c);
      const document = c.req.param("document") ?? "";
      const row = await pullKoreaderProgress(c.get("deps").db, principal, document);
      if (!row) return kosyncJson({});
      return kosyncJson({
        document,
        // KOReader's own position when the latest write was KOReader's; after another app's, its
        // percentage alone (KOReader then goes by the percentage).
        ...(row.koreaderProgress !== null ? { progress: row.koreaderProgress } : {}),
        percentage: row.percentage,
        device: row.koreaderDevice ?? row.device,
        device_id: row.koreaderDeviceId ?? "",
        timestamp: Math.floor(row.updatedAt.getTime() / 1000),
      });
    }),
  );

  // The official server's liveness probe, for monitors pointed at a sync server.
  router.get(
    "/healthcheck",
    kosync(async () => kosyncJson({ state: "OK" })),
  );

  return router;
}
