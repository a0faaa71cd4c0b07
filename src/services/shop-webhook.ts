// WooCommerce webhook deliveries (see `receiveShopWebhook`): the signature is checked on the raw
// body bytes, in constant time, before anything parses them; the payload only names the order.
import { createHmac, timingSafeEqual } from "node:crypto";
import { AppError, validationFailed } from "../lib/problems";

/** The creation ping: a form POST `webhook_id=<n>`, unsigned. */
const PING = /^webhook_id=\d{1,20}$/;

/** wp_specialchars_decode($secret, ENT_QUOTES): WooCommerce signs with the HTML-decoded secret. */
function decodedSecret(secret: string): string {
  return secret
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"')
    .replaceAll("&#039;", "'")
    .replaceAll("&#39;", "'")
    .replaceAll("&amp;", "&");
}

export function webhookSignature(body: Uint8Array, secret: string): string {
  return createHmac("sha256", decodedSecret(secret)).update(body).digest("base64");
}

/**
 * Whether `signature` (the header as sent) is the body's, compared as the base64 text in constant
 * time: decoding first would take non-canonical spellings (other padding bits) for the digest.
 */
export function isValidSignature(body: Uint8Array, signature: string, secret: string): boolean {
  const expected = Buffer.from(webhookSignature(body, secret));
  const given = Buffer.from(signature.trim());
  // A wrong length says nothing about the secret; equal lengths are compared without shortcuts.
  if (given.length !== expected.length) return false;
  return timingSafeEqual(given, expected);
}

export type Delivery = { kind: "ping" } | { kind: "ignored" } | { kind: "order"; orderId: number };

const signatureFailed = () =>
  new AppError("AUTHENTICATION_FAILED", "The webhook delivery's signature is missing or wrong.");

/** What a delivery asks for, once its signature holds; 401 otherwise. */
export function readDelivery(
  body: Uint8Array,
  headers: { signature?: string | undefined; topic?: string | undefined },
  secret: string,
): Delivery {
  if (headers.signature === undefined) {
    if (headers.topic === undefined && PING.test(new TextDecoder().decode(body).trim()))
      return { kind: "ping" };
    throw signatureFailed();
  }
  if (!isValidSignature(body, headers.signature, secret)) throw signatureFailed();
  if (!headers.topic?.startsWith("order.")) return { kind: "ignored" };
  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw new AppError("INVALID_DEFINITION", "The delivery's body is not JSON.");
  }
  const id = (payload as { id?: unknown } | null)?.id;
  if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 1)
    throw validationFailed("id", "the delivery names no order");
  return { kind: "order", orderId: id };
}
