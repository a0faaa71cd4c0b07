// Why a bucket call failed, for the operator's log line: the bucket refused our credentials, it
// cannot be reached, or it answered some other error. The client gets the same 503 either way;
// the operator needs to know whether to fix S3_SECRET_ACCESS_KEY or the network.

export type BucketFailure = "credentials refused" | "cannot be reached" | "answered with an error";

/** S3 error codes that mean the key id, the signature or the key's rights were refused. */
const CREDENTIALS_REFUSED = new Set([
  "InvalidAccessKeyId",
  "SignatureDoesNotMatch",
  "AccessDenied",
  "AllAccessDisabled",
  "AccountProblem",
  "ExpiredToken",
  "InvalidToken",
  "InvalidSecurity",
  "TokenRefreshRequired",
  "AuthorizationHeaderMalformed",
]);

/** Bun's and the system's codes for a connection that was never made or broke (no answer at all). */
const UNREACHABLE = new Set([
  "ConnectionRefused",
  "ConnectionClosed",
  "ConnectionResetByPeer",
  "FailedToOpenSocket",
  "ConnectionTimedOut",
  "Timeout",
  "DNSResolutionFailed",
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
]);

/** An error code as the log may carry it: a short identifier, never text from the answer's body. */
const CODE = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * The log fields of a failed bucket call: the failure's kind and the code behind it. A call that
 * timed out on our side passes no error. Bun gives a HEAD request (stat, exists) no S3 code, as
 * the answer has no body: such a refusal reads "answered with an error" (UnknownError).
 */
export function bucketFailureFields(error?: unknown): { reason: BucketFailure; storageCode?: string } {
  if (error === undefined) return { reason: "cannot be reached", storageCode: "timeout" };
  const raw = (error as { code?: unknown } | null)?.code;
  const code = typeof raw === "string" && CODE.test(raw) ? raw : undefined;
  const reason: BucketFailure =
    code !== undefined && CREDENTIALS_REFUSED.has(code)
      ? "credentials refused"
      : code !== undefined && UNREACHABLE.has(code)
        ? "cannot be reached"
        : "answered with an error";
  return code === undefined ? { reason } : { reason, storageCode: code };
}
