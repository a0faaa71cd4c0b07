// The webhook's signature rule (`receiveShopWebhook`): WooCommerce's own vector, PHP as the
// oracle for HTML-entity secrets and PHP-escaped bodies, and what a delivery is read as.
import { describe, expect, test } from "bun:test";
import { AppError } from "../../src/lib/problems";
import { isValidSignature, readDelivery, webhookSignature } from "../../src/services/shop-webhook";
import { requireTool } from "../helpers/requires";

const bytes = (text: string) => new TextEncoder().encode(text);
const hasPhp = requireTool("php", "php-cli");

function phpSignature(body: string, secret: string): string {
  const code =
    'echo base64_encode(hash_hmac("sha256", file_get_contents("php://stdin"), htmlspecialchars_decode($argv[1], ENT_QUOTES), true));';
  const run = Bun.spawnSync(["php", "-r", code, secret], { stdin: Buffer.from(body) });
  return run.stdout.toString().trim();
}

const codeOf = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
  return "no error";
};

describe("shop webhook signatures", () => {
  test("WooCommerce's vector", () => {
    const body = bytes('{"id":727,"status":"processing"}');
    expect(webhookSignature(body, "s3cr3t")).toBe("/ZQ1DdNBQQeY1ffzSoZud+SQvSc9DJ3ep/umJ9T5f4I=");
    expect(isValidSignature(body, "/ZQ1DdNBQQeY1ffzSoZud+SQvSc9DJ3ep/umJ9T5f4I=", "s3cr3t")).toBe(true);
    expect(isValidSignature(body, "/ZQ1DdNBQQeY1ffzSoZud+SQvSc9DJ3ep/umJ9T5f4J=", "s3cr3t")).toBe(false);
    expect(isValidSignature(body, "", "s3cr3t")).toBe(false);
    expect(isValidSignature(body, "not base64 at all", "s3cr3t")).toBe(false);
  });

  test.if(hasPhp)("the same as PHP's, for secrets with entities and bodies PHP's json_encode made", () => {
    const secrets = ["s3cr3t", "a&amp;b&lt;c&gt;&quot;d&#039;", "plain & simple", "日本語-🔐"];
    const body = '{"id":9,"billing":{"email":"a@b.c","note":"caf\\u00e9 \\/ x"}}';
    for (const secret of secrets) {
      const oracle = phpSignature(body, secret);
      expect(webhookSignature(bytes(body), secret)).toBe(oracle);
      expect(isValidSignature(bytes(body), oracle, secret)).toBe(true);
    }
  });

  test("a delivery: ping, ignored topic, an order, and the 401s", () => {
    const secret = "s3cr3t";
    expect(readDelivery(bytes("webhook_id=12"), {}, secret)).toEqual({ kind: "ping" });
    expect(codeOf(() => readDelivery(bytes("webhook_id=12"), { topic: "order.updated" }, secret))).toBe(
      "AUTHENTICATION_FAILED",
    );
    const body = bytes('{"id":727,"status":"processing"}');
    const signature = webhookSignature(body, secret);
    expect(codeOf(() => readDelivery(body, { topic: "order.updated" }, secret))).toBe(
      "AUTHENTICATION_FAILED",
    );
    expect(codeOf(() => readDelivery(body, { signature, topic: "order.updated" }, "other"))).toBe(
      "AUTHENTICATION_FAILED",
    );
    expect(readDelivery(body, { signature, topic: "product.updated" }, secret)).toEqual({ kind: "ignored" });
    expect(readDelivery(body, { signature, topic: "order.updated" }, secret)).toEqual({
      kind: "order",
      orderId: 727,
    });
    const noId = bytes('{"status":"processing"}');
    expect(
      codeOf(() =>
        readDelivery(noId, { signature: webhookSignature(noId, secret), topic: "order.created" }, secret),
      ),
    ).toBe("VALIDATION_FAILED");
  });
});
