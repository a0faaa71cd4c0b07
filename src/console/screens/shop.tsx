// GET /console/shop (README "Console", "Shop orders"): the reconciliation's status and lag
// (services/shop-status.ts), a "Sync now" button (the same ShopSync.sync as POST /shop/sync, its
// counts shown after the redirect), an order looked up by its number (?order=, ShopSync.view as
// GET /shop/orders/{orderId} shows it, with its items), the latest grants of shop orders (all of
// them a page at a time at /console/shop/orders, services/shop-orders.ts), and the product
// mappings, one page, with a form to add one (Book, Product, Variation) and a removal after its
// own confirmation page.
import type { Hono } from "hono";
import type { AppBindings } from "../../http/types";
import { AppError } from "../../lib/problems";
import { recentShopGrants, type ShopOrderGrantRow } from "../../services/shop-orders";
import {
  createShopProduct,
  getShopProduct,
  listShopProducts,
  removeShopProduct,
} from "../../services/shop-products";
import { shopStatus } from "../../services/shop-status";
import type { ShopOrderView } from "../../services/shop-sync";
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
import { DataTable, ListQuery, PAGE_SIZE, TableScroll } from "../kit/table";
import { BookLink, bookTitles, Facts, pageRows, UserLink, when, windowOf } from "./shared";

const LABELS = { book: "Book", product: "Product", variation: "Variation" };
const NUMBER = /^[1-9]\d{0,15}$/;
/** How many of the latest grants /console/shop shows; the rest are at /console/shop/orders. */
const GRANTS_SHOWN = 10;
const SHOP_OFF = "Shop orders are off (SHOP_ORDERS is unset): bookdist does not read the shop's orders.";

/** The order looked up (`?order=`): what was typed, its error, or the order found. */
interface Lookup {
  value: string;
  error?: string;
  order?: ShopOrderView;
}

interface ShopPageState {
  values?: FormValues;
  errors?: FieldErrors;
  /** Why "Sync now" did nothing. */
  syncError?: string;
  lookup?: Lookup;
  status?: number;
}

/** An order number typed in the look-up field: the order, or the field's message. */
async function lookUp(c: ConsoleContext, typed: string | undefined): Promise<Lookup | undefined> {
  if (typed === undefined) return undefined;
  const value = typed.trim().slice(0, 40);
  if (!NUMBER.test(value) || !Number.isSafeInteger(Number(value)))
    return { value, error: "Enter the order's number (a positive whole number)." };
  const { shop } = c.get("deps");
  if (!shop) return { value, error: SHOP_OFF };
  const order = await shop.view(Number(value));
  if (!order) return { value, error: `The shop has no order ${value}.` };
  return { value, order };
}

function GrantsTable(props: {
  caption: string;
  rows: ShopOrderGrantRow[];
  titles: Map<number, string>;
  empty?: string;
}) {
  return (
    <table>
      <caption>{props.caption}</caption>
      <thead>
        <tr>
          <th scope="col">Order</th>
          <th scope="col">Book</th>
          <th scope="col">User</th>
          <th scope="col">State</th>
          <th scope="col" class="numeric">
            Activation
          </th>
          <th scope="col">Recorded</th>
        </tr>
      </thead>
      <tbody>
        {props.rows.length === 0 ? (
          <tr>
            <td colspan={6}>{props.empty ?? "No shop order has granted a book yet."}</td>
          </tr>
        ) : (
          props.rows.map((g) => <GrantRow grant={g} title={props.titles.get(g.bookId)} />)
        )}
      </tbody>
    </table>
  );
}

function GrantRow(props: { grant: ShopOrderGrantRow; title?: string | undefined }) {
  const g = props.grant;
  return (
    <tr>
      <td>
        <a href={`/console/shop?order=${g.orderId}`}>{g.orderId}</a>
      </td>
      <td>
        <BookLink id={g.bookId} title={props.title} />
      </td>
      <td>{g.userUuid ? <UserLink uuid={g.userUuid} /> : "—"}</td>
      <td>{g.state}</td>
      <td class="numeric">{g.activationId ?? "—"}</td>
      <td>{when(g.updatedAt)}</td>
    </tr>
  );
}

/** An order as the shop holds it now: its facts, its items and what bookdist granted for it. */
function OrderView(props: { order: ShopOrderView; titles: Map<number, string> }) {
  const { order } = props;
  return (
    <section aria-labelledby="order-found">
      <h3 id="order-found">{`Order ${order.orderId}`}</h3>
      <Facts
        rows={[
          ["Status", <code>{order.status}</code>],
          ["Paid", order.paid ? "yes" : "no"],
          [
            "Customer",
            order.userUuid ? <UserLink uuid={order.userUuid} /> : "none (a guest order nobody has claimed)",
          ],
          ["Last reconciled", order.syncedAt ? when(order.syncedAt) : "never"],
        ]}
      />
      <TableScroll label="The order's items">
        <table>
          <caption>{`The items of order ${order.orderId}`}</caption>
          <thead>
            <tr>
              <th scope="col" class="numeric">
                Line item
              </th>
              <th scope="col" class="numeric">
                Product
              </th>
              <th scope="col" class="numeric">
                Variation
              </th>
              <th scope="col" class="numeric">
                Quantity (net of refunds)
              </th>
            </tr>
          </thead>
          <tbody>
            {order.lines.length === 0 ? (
              <tr>
                <td colspan={4}>The order has no items.</td>
              </tr>
            ) : (
              order.lines.map((line) => (
                <tr>
                  <td class="numeric">{line.lineItemId}</td>
                  <td class="numeric">{line.productId}</td>
                  <td class="numeric">{line.variationId || "—"}</td>
                  <td class="numeric">{line.netQuantity}</td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </TableScroll>
      <TableScroll label="The order's grants">
        <GrantsTable
          caption={`What order ${order.orderId} granted`}
          rows={order.grants}
          titles={props.titles}
          empty="bookdist has granted nothing for this order (not reconciled yet, or nothing in it is mapped)."
        />
      </TableScroll>
    </section>
  );
}

async function shopPage(c: ConsoleContext, state: ShopPageState = {}) {
  const { values = {}, errors = {}, lookup } = state;
  const deps = c.get("deps");
  const query = ListQuery.of(c, ["id"] as const, { sort: "id", dir: "desc" });
  const [status, list, grants] = await Promise.all([
    shopStatus(deps),
    listShopProducts(deps.db, windowOf(query)).then(pageRows),
    recentShopGrants(deps.db, 0, GRANTS_SHOWN),
  ]);
  const titles = await bookTitles(deps.db, [
    ...list.rows.map((row) => row.bookId),
    ...grants.rows.map((row) => row.bookId),
    ...(lookup?.order?.grants.map((row) => row.bookId) ?? []),
  ]);
  return page(
    c,
    { title: "Shop", section: "shop", status: state.status ?? 200 },
    <>
      <Facts
        rows={[
          ["Shop orders", status.enabled ? "on" : "off (SHOP_ORDERS)"],
          ["Last sync", status.lastSyncAt ? when(new Date(status.lastSyncAt)) : "never"],
          ["Orders in the last sync", String(status.lastSyncOrders)],
          ["Lag", status.lagSeconds === null ? "—" : `${status.lagSeconds} s`],
          [
            "Webhook",
            status.webhook.configured
              ? `configured, last delivery ${when(status.webhook.lastDeliveryAt ? new Date(status.webhook.lastDeliveryAt) : null)}`
              : "not configured",
          ],
        ]}
      />
      <h2>Synchronise now</h2>
      {state.syncError && (
        <div class="error-summary" role="alert">
          <p>{state.syncError}</p>
        </div>
      )}
      {status.enabled ? (
        <Form action="/console/shop/sync" label="Synchronise the shop's orders now">
          <p class="hint" id="hint-sync">
            Reads every order changed since the last sync and grants or takes back their books now, without
            waiting for the next scheduled sync.
          </p>
          <Submit label="Sync now" />
        </Form>
      ) : (
        <p>{SHOP_OFF}</p>
      )}
      <h2>Look an order up</h2>
      <form method="get" action="/console/shop" class="search" aria-label="Look an order up">
        <Field
          name="order"
          label="Order"
          hint="The WooCommerce order number."
          inputmode="numeric"
          value={lookup?.value}
          error={lookup?.error}
          required
        />
        <button type="submit" class="button">
          Look up
        </button>
      </form>
      {lookup?.order && <OrderView order={lookup.order} titles={titles} />}
      <h2>Recent orders</h2>
      <TableScroll label="Recent orders">
        <GrantsTable
          caption={`The latest ${GRANTS_SHOWN} grants of shop orders, newest first`}
          rows={grants.rows}
          titles={titles}
        />
      </TableScroll>
      {grants.hasNext && (
        <p>
          <a href="/console/shop/orders">All grants of shop orders</a>
        </p>
      )}
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

/** GET /console/shop/orders: every grant of the shop's orders, newest first, a page at a time. */
async function grantsPage(c: ConsoleContext) {
  const { db } = c.get("deps");
  const query = ListQuery.of(c, ["id"] as const, { sort: "id", dir: "desc" });
  const grants = await recentShopGrants(db, query.page, PAGE_SIZE);
  const titles = await bookTitles(
    db,
    grants.rows.map((row) => row.bookId),
  );
  return page(
    c,
    { title: "Grants of shop orders", section: "shop" },
    <>
      <p>
        What bookdist recorded for each line of each order: active (the order's activation), revoked (taken
        back by a refund or a cancellation), already-held, or no-account.{" "}
        <a href="/console/shop">Back to the shop</a>.
      </p>
      <DataTable
        id="shop-grants"
        caption="Grants of shop orders, newest first"
        columns={[
          { label: "Order" },
          { label: "Book" },
          { label: "User" },
          { label: "State" },
          { label: "Activation", numeric: true },
          { label: "Recorded" },
        ]}
        query={query}
        rows={grants.rows.map((g) => <GrantRow grant={g} title={titles.get(g.bookId)} />)}
        hasNext={grants.hasNext}
        empty="No shop order has granted a book yet."
      />
    </>,
  );
}

export function mountShop(router: Hono<AppBindings>): void {
  router.get("/shop", async (c) => {
    const lookup = await lookUp(c, c.req.query("order"));
    const status = !lookup?.error ? 200 : lookup.error.startsWith("Enter") ? 400 : 404;
    return shopPage(c, lookup ? { lookup, status } : {});
  });

  router.get("/shop/orders", (c) => grantsPage(c));

  // Not destructive (it does what the scheduled sync would do a minute later): no confirmation page.
  router.post("/shop/sync", async (c) => {
    const { shop } = c.get("deps");
    if (!shop) return shopPage(c, { syncError: SHOP_OFF, status: 409 });
    // The grants and revocations it makes are the shop's, recorded as such (services/shop-apply.ts),
    // exactly as for POST /shop/sync and the scheduled sync.
    const result = await shop.sync();
    return redirectTo(c, "/console/shop", "shop-synced", { ...result });
  });

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
    if (Object.keys(errors).length > 0) return shopPage(c, { values, errors, status: 400 });
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
      if (!result.ok)
        return shopPage(c, { values, errors: { book: `No book has the id ${values.book}.` }, status: 400 });
    } catch (error) {
      if (error instanceof AppError && error.code === "CONFLICT") {
        return shopPage(c, {
          values,
          errors: {
            product: `${error.message} Nothing to add; remove the mapping below first to change it.`,
          },
          status: 409,
        });
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
