// A JSON body is read whole, bounded in size and in time: a body that keeps trickling is cut
// off at its deadline, not taken for complete.
import { describe, expect, test } from "bun:test";
import { readBounded } from "../../src/http/bounded-body";
import { AppError } from "../../src/lib/problems";

/** A POST whose body sends `parts`, then, unless `ends`, never ends. */
function requestSending(parts: string[], ends: boolean): Request {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const part of parts) controller.enqueue(encoder.encode(part));
      if (ends) controller.close();
    },
  });
  return new Request("http://127.0.0.1/x", { method: "POST", body });
}

async function failureOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("readBounded", () => {
  test("a body that ends is read whole", async () => {
    expect(await readBounded(requestSending(['{"a":', "1}"], true), 100, 1000)).toBe('{"a":1}');
  });

  test("a body that has not ended by the deadline is cut off, not taken for complete", async () => {
    const error = await failureOf(readBounded(requestSending(['{"a":'], false), 100, 50));
    expect(error.code).toBe("VALIDATION_FAILED");
  });

  test("a body over the limit is refused", async () => {
    const error = await failureOf(readBounded(requestSending(["x".repeat(60), "x".repeat(60)], true), 100));
    expect(error.code).toBe("PAYLOAD_TOO_LARGE");
  });
});
