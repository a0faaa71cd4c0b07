// The shop screen (API.md §10 /console/shop): status and lag, product mappings added with the
// fields Book, Product and Variation (errors beside them, values kept, a 409 that says what to do)
// and removed after a confirmation page; a cross-site POST changes nothing. SQLite or Postgres.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { countShopProducts } from "../../src/services/shop-products";
import { createTestApp, type TestApp } from "../helpers/test-app";
import { makeBook } from "./fixtures";
import { consoleRequest, expectLoginRedirect, signedInAdmin, textOf } from "./helpers";

describe("console shop", () => {
  let t: TestApp;
  let cookie: string;
  let bookId: number;
  beforeAll(async () => {
    t = await createTestApp();
    ({ cookie } = await signedInAdmin(t));
    bookId = (await makeBook(t, "Sold Book")).id;
  });
  afterAll(() => t.close());

  const post = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    consoleRequest(t, "POST", "/console/shop/products", { cookie, form, headers });

  test("no session: to the sign-in page; the page: status and the fields", async () => {
    expectLoginRedirect(await consoleRequest(t, "GET", "/console/shop"), "/console/shop");
    const response = await consoleRequest(t, "GET", "/console/shop", { cookie });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(textOf(html)).toContain("Shop orders off");
    for (const label of ["Book", "Product", "Variation"])
      expect(html).toMatch(new RegExp(`<label for="field-[a-z]+">${label}`));
  });

  test("map: errors beside the fields with values kept; then a 303; a duplicate is a 409", async () => {
    const wrong = await post({ book: "999999", product: "x12", variation: "" });
    expect(wrong.status).toBe(400);
    const html = await wrong.text();
    expect(html).toMatch(/id="error-product">Enter the product/);
    expect(html).toContain('value="x12"');
    const noBook = await post({ book: "999999", product: "12", variation: "" });
    expect(noBook.status).toBe(400);
    expect(await noBook.text()).toMatch(/id="error-book">No book has the id 999999/);
    const mapped = await post({ book: String(bookId), product: "12", variation: "3" });
    expect(mapped.status).toBe(303);
    expect(await countShopProducts(t.deps.db)).toBe(1);
    const again = await post({ book: String(bookId), product: "12", variation: "3" });
    expect(again.status).toBe(409);
    expect(textOf(await again.text())).toContain("already mapped");
    expect(textOf(await (await consoleRequest(t, "GET", "/console/shop", { cookie })).text())).toContain(
      "Sold Book",
    );
  });

  test("cross-site POST: 403, nothing mapped or removed; remove after a confirmation page", async () => {
    const evil = { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" };
    expect((await post({ book: String(bookId), product: "13", variation: "" }, evil)).status).toBe(403);
    expect(await countShopProducts(t.deps.db)).toBe(1);
    const page = await (await consoleRequest(t, "GET", "/console/shop", { cookie })).text();
    const id = /\/console\/shop\/products\/(\d+)\/remove/.exec(page)![1];
    const path = `/console/shop/products/${id}/remove`;
    expect((await consoleRequest(t, "POST", path, { cookie, headers: evil })).status).toBe(403);
    const confirm = await consoleRequest(t, "GET", path, { cookie });
    expect(confirm.status).toBe(200);
    expect(await confirm.text()).toMatch(/<button type="submit"[^>]*>Delete<\/button>/);
    expect(await countShopProducts(t.deps.db)).toBe(1);
    expect((await consoleRequest(t, "POST", path, { cookie })).status).toBe(303);
    expect(await countShopProducts(t.deps.db)).toBe(0);
    expect((await consoleRequest(t, "GET", path, { cookie })).status).toBe(404);
  });
});
