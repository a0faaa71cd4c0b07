// GET /console/shop (README "Console", "Shop orders"): the reconciliation's status and lag
// (services/shop-status.ts) and the product mappings, one page, with a form to add one (Book,
// Product, Variation) and a removal after its own confirmation page.
import type { Hono } from "hono";
import type { AppBindings } from "../../http/types";
import { AppError } from "../../lib/problems";
import {
  createShopProduct,
  getShopProduct,
  listShopProducts,
  removeShopProduct,
} from "../../services/shop-products";
import { shopStatus } from "../../services/shop-status";
import {
  ErrorSummary,
  Field,
  type FieldErrors,
  Form,
  type FormValues,
  readForm,
  Submit,
  withFieldErrors,
} from "../kit/form";
import { page } from "../kit/layout";
import { confirmPage } from "../kit/pages";
import { auditSourceOf, type ConsoleContext, idParam, redirectTo } from "../kit/respond";
import { DataTable, ListQuery, PAGE_SIZE } from "../kit/table";
import { BookLink, bookTitles, Facts, pageRows, when, windowOf } from "./shared";

const LABELS = { book: "Book", product: "Product", variation: "Variation" };
const NUMBER = /^[1-9]\d{0,15}$/;

async function shopPage(c: ConsoleContext, values: FormValues = {}, errors: FieldErrors = {}, status = 200) {
  const deps = c.get("deps");
  const query = ListQuery.of(c, ["id"] as const, { sort: "id", dir: "desc" });
  const [state, list] = await Promise.all([
    shopStatus(deps),
    listShopProducts(deps.db, windowOf(query)).then(pageRows),
  ]);
  const titles = await bookTitles(
    deps.db,
    list.rows.map((row) => row.bookId),
  );
  return page(
    c,
    { title: "Shop", section: "shop", status },
    <>
      <Facts
        rows={[
          ["Shop orders", state.enabled ? "on" : "off (SHOP_ORDERS)"],
          ["Last sync", state.lastSyncAt ? when(new Date(state.lastSyncAt)) : "never"],
          ["Orders in the last sync", String(state.lastSyncOrders)],
          ["Lag", state.lagSeconds === null ? "—" : `${state.lagSeconds} s`],
          [
            "Webhook",
            state.webhook.configured
              ? `configured, last delivery ${when(state.webhook.lastDeliveryAt ? new Date(state.webhook.lastDeliveryAt) : null)}`
              : "not configured",
          ],
        ]}
      />
      <h2>Map a product to a book</h2>
      <ErrorSummary errors={errors} labels={LABELS} />
      <Form action="/console/shop/products" label="Map a product">
        <Field
          name="book"
          label={LABELS.book}
          hint="The book's id."
          inputmode="numeric"
          value={values.book}
          error={errors.book}
          required
        />
        <Field
          name="product"
          label={LABELS.product}
          hint="The WooCommerce product id."
          inputmode="numeric"
          value={values.product}
          error={errors.product}
          required
        />
        <Field
          name="variation"
          label={LABELS.variation}
          hint="The variation id; empty for the product itself."
          inputmode="numeric"
          value={values.variation}
          error={errors.variation}
        />
        <Submit label="Map" />
      </Form>
      <DataTable
        id="shop-products"
        caption="Product mappings"
        columns={[
          { label: "Product", numeric: true },
          { label: "Variation", numeric: true },
          { label: "Book" },
          { label: "Actions" },
        ]}
        query={query}
        rows={list.rows.map((p) => (
          <tr>
            <td class="numeric">{p.productId}</td>
            <td class="numeric">{p.variationId || "—"}</td>
            <td>
              <BookLink id={p.bookId} title={titles.get(p.bookId)} />
            </td>
            <td>
              <a href={`/console/shop/products/${p.id}/remove`}>Remove</a>
            </td>
          </tr>
        ))}
        total={list.total}
        hasNext={(query.page + 1) * PAGE_SIZE < list.total}
        empty="No product is mapped to a book yet."
      />
    </>,
  );
}

export function mountShop(router: Hono<AppBindings>): void {
  router.get("/shop", (c) => shopPage(c));

  router.post("/shop/products", async (c) => {
    const form = await readForm(c);
    const values = {
      book: (form.book ?? "").trim(),
      product: (form.product ?? "").trim(),
      variation: (form.variation ?? "").trim(),
    };
    const errors: FieldErrors = {};
    if (!NUMBER.test(values.book)) errors.book = "Enter the book's id (a number).";
    if (!NUMBER.test(values.product)) errors.product = "Enter the product's id (a number).";
    if (values.variation !== "" && !NUMBER.test(values.variation))
      errors.variation = "Enter the variation's id, or leave it empty.";
    if (Object.keys(errors).length > 0) return shopPage(c, values, errors, 400);
    const { db, clock } = c.get("deps");
    try {
      const result = await withFieldErrors(["bookId"], () =>
        createShopProduct(
          db,
          auditSourceOf(c),
          {
            bookId: Number(values.book),
            productId: Number(values.product),
            variationId: values.variation === "" ? 0 : Number(values.variation),
          },
          clock.now(),
        ),
      );
      if (!result.ok) return shopPage(c, values, { book: `No book has the id ${values.book}.` }, 400);
    } catch (error) {
      if (error instanceof AppError && error.code === "CONFLICT") {
        return shopPage(
          c,
          values,
          { product: `${error.message} Nothing to add; remove the mapping below first to change it.` },
          409,
        );
      }
      throw error;
    }
    return redirectTo(c, "/console/shop", "product-mapped");
  });

  router.get("/shop/products/:id/remove", async (c) => {
    const product = await getShopProduct(c.get("deps").db, idParam(c));
    return confirmPage(c, {
      title: "Remove the product mapping?",
      section: "shop",
      action: `/console/shop/products/${product.id}/remove`,
      button: "Delete",
      cancelHref: "/console/shop",
      children: (
        <p>
          Remove the mapping of product {product.productId}
          {product.variationId ? ` (variation ${product.variationId})` : ""} to book {product.bookId}? New
          orders of it grant nothing; books already granted stay with their readers.
        </p>
      ),
    });
  });

  router.post("/shop/products/:id/remove", async (c) => {
    const { db, clock } = c.get("deps");
    await removeShopProduct(db, auditSourceOf(c), idParam(c), clock.now());
    return redirectTo(c, "/console/shop", "product-removed");
  });
}
