// Records the console screens' tests start from, made through the services (as the admin command
// line would: recorded via "cli"), so each test reads its own book, codes and activations.
import { cliSource } from "../../src/services/audit";
import { createBook } from "../../src/services/books";
import { createQrCodeBatch } from "../../src/services/qr-codes";
import type { TestApp } from "../helpers/test-app";

let books = 0;

export async function makeBook(t: TestApp, title = `Book ${++books}`) {
  return createBook(
    t.deps.db,
    cliSource,
    { title, author: "A. Author", isbn: null, description: null, language: "en" },
    t.clock.now(),
  );
}

export async function makeCodes(t: TestApp, bookId: number, quantity = 2, label: string | null = "Run") {
  return createQrCodeBatch(
    t.deps.db,
    cliSource,
    { bookId, quantity, maxActivations: 2, label, expiresAt: null },
    t.clock.now(),
  );
}

/** A reader redeems `code` over the API; answers the activation's id. */
export async function redeem(t: TestApp, token: string, code: string): Promise<number> {
  const response = await t.call("POST", "/activation/by-qr-code", { token, json: { code } });
  if (response.status !== 201) throw new Error(`redeem: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { id: number }).id;
}
