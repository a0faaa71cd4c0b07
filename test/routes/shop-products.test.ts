// ShopProduct mappings (README, Shop orders): admin CRUD, duplicates 409 (also "any variation"
// twice), an unknown book 400, a book's list 404 for an unknown book, sorting and the counted
// total.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { z } from "zod";
import { Book } from "../../src/routes/books/books.schemas";
import { ShopProduct } from "../../src/routes/shop-products/shop-products.schemas";
import { bodyAs, expectProblem } from "../helpers/responses";
import { createTestApp, type TestApp } from "../helpers/test-app";

const ShopProducts = z.array(ShopProduct);

describe("shop products (admin)", () => {
  let t: TestApp;
  let admin: string;
  let bookA: number;
  let bookB: number;
  beforeAll(async () => {
    t = await createTestApp();
    admin = (await t.admin()).token;
    const book = async (title: string) =>
      (await bodyAs(await t.call("POST", "/book", { token: admin, json: { title } }), Book)).id;
    bookA = await book("A");
    bookB = await book("B");
  });
  afterAll(() => t.close());

  const create = (json: unknown) => t.call("POST", "/shop-product", { token: admin, json });

  test("create, read, list, count, delete; variationId null means any variation", async () => {
    const created = await create({ bookId: bookA, productId: 1520 });
    expect(created.status).toBe(201);
    const any = await bodyAs(created, ShopProduct);
    expect(any).toMatchObject({ bookId: bookA, productId: 1520, variationId: null });
    expect(created.headers.get("location")).toBe(`/shop-product/${any.id}`);
    const variation = await bodyAs(
      await create({ bookId: bookA, productId: 1520, variationId: 7 }),
      ShopProduct,
    );
    expect(variation.variationId).toBe(7);
    const other = await bodyAs(
      await create({ bookId: bookB, productId: 99, variationId: null }),
      ShopProduct,
    );

    expect(
      await bodyAs(await t.call("GET", `/shop-product/${any.id}`, { token: admin }), ShopProduct),
    ).toEqual(any);
    const list = await t.call("GET", "/shop-product?sort=productId,desc", { token: admin });
    // Ties follow the sort's direction (the id is the index's last column), as in every list.
    expect(list.headers.get("x-total-count")).toBe("3");
    expect((await bodyAs(list, ShopProducts)).map((p) => p.id)).toEqual([variation.id, any.id, other.id]);
    expect(await (await t.call("GET", "/shop-product/count", { token: admin })).text()).toBe("3");
    const ofBook = await bodyAs(
      await t.call("GET", `/book/${bookA}/shop-products`, { token: admin }),
      ShopProducts,
    );
    expect(ofBook.map((p) => p.id)).toEqual([any.id, variation.id]);

    const deleted = await t.call("DELETE", `/shop-product/${other.id}`, { token: admin });
    expect(await bodyAs(deleted, ShopProduct)).toEqual(other);
    await expectProblem(await t.call("GET", `/shop-product/${other.id}`, { token: admin }), 404, "NOT_FOUND");
    expect(await (await t.call("GET", "/shop-product/count", { token: admin })).text()).toBe("2");
  });

  test("a duplicate is 409, with or without a variation; an unknown book 400; an unknown book's list 404", async () => {
    await create({ bookId: bookB, productId: 3000 });
    await expectProblem(await create({ bookId: bookB, productId: 3000 }), 409, "CONFLICT");
    await expectProblem(await create({ bookId: bookB, productId: 3000, variationId: null }), 409, "CONFLICT");
    expect((await create({ bookId: bookB, productId: 3000, variationId: 4 })).status).toBe(201);
    await expectProblem(await create({ bookId: bookB, productId: 3000, variationId: 4 }), 409, "CONFLICT");
    await expectProblem(await create({ bookId: 999_999, productId: 1 }), 400, "VALIDATION_FAILED");
    await expectProblem(await create({ bookId: bookB, productId: 0 }), 400, "VALIDATION_FAILED");
    await expectProblem(
      await t.call("GET", "/book/999999/shop-products", { token: admin }),
      404,
      "NOT_FOUND",
    );
  });

  test("admins only", async () => {
    const reader = await t.user();
    await expectProblem(await t.call("GET", "/shop-product", { token: reader.token }), 403, "FORBIDDEN");
    await expectProblem(await t.call("GET", "/shop-product"), 401, "UNAUTHORIZED");
    await expectProblem(await t.call("GET", "/shop/status", { token: reader.token }), 403, "FORBIDDEN");
  });
});
