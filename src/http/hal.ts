// HAL: only for clients that ask for application/hal+json. A resource's HAL form is
// declared once — its plain schema and its links — and both the OpenAPI document's
// `application/hal+json` schemas and the bodies the handlers send are made from that declaration.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppBindings } from "./types";

export const HAL_CONTENT_TYPE = "application/hal+json";

export const Link = z
  .object({ href: z.string().openapi({ example: "/book/7" }) })
  .openapi("Link", { description: "A HAL link: absolute from PUBLIC_URL, else root-relative" });
export type Link = z.infer<typeof Link>;

export const PageInfo = z
  .object({
    size: z.number().int().openapi({ example: 20 }),
    number: z.number().int().openapi({ example: 0 }),
    totalElements: z.number().int().openapi({ example: 42 }),
    totalPages: z.number().int().openapi({ example: 3 }),
  })
  .openapi("PageInfo", { description: "Present when the list was asked for by page" });
export type PageInfo = z.infer<typeof PageInfo>;

/** A link's path from the item it belongs to; `optional` ones are left out when they give null. */
type LinkBuilder<T> = ((item: T) => string) | { optional: (item: T) => string | null };

type LinksShape<B> = {
  [Rel in keyof B]: B[Rel] extends { optional: unknown } ? z.ZodOptional<typeof Link> : typeof Link;
};

type HalSchema<S extends z.ZodObject, B> = z.ZodObject<S["shape"] & { _links: z.ZodObject<LinksShape<B>> }>;

/** A resource with its HAL form: `schema` for JSON, `hal` (`_links` added) for HAL. */
export interface Resource<S extends z.ZodObject = z.ZodObject, H extends z.ZodObject = z.ZodObject> {
  name: string;
  schema: S;
  hal: H;
  toHal(item: z.output<S>, base: string): z.output<H>;
  /** The item's `self` link, root-relative: where it is found (a 201's Location). */
  selfPath(item: z.output<S>): string;
}

/** A list of such resources: a JSON array, or HAL `_embedded.<rel>` with `_links` and `page`. */
export interface ResourceList<S extends z.ZodObject = z.ZodObject, H extends z.ZodObject = z.ZodObject> {
  rel: string;
  item: Resource<S, H>;
  schema: z.ZodArray<S>;
  hal: z.ZodType<HalList<z.output<H>>>;
}

interface HalList<T> {
  _embedded: Record<string, T[]>;
  _links: { self: Link };
  page?: PageInfo;
}

/**
 * Declares `schema`'s HAL form: `links` maps each rel to the path it points at (base added when
 * sent; every resource has its `self`), and `embedded` gives nested resources their own HAL form.
 */
export function halResource<
  S extends z.ZodObject,
  const B extends { self: (item: z.output<S>) => string } & Record<string, LinkBuilder<z.output<S>>>,
>(
  name: string,
  schema: S,
  links: B,
  embedded: { [K in keyof z.output<S>]?: Resource } = {},
): Resource<S, HalSchema<S, B>> {
  const linkShape = Object.fromEntries(
    Object.entries(links).map(([rel, build]) => [rel, typeof build === "function" ? Link : Link.optional()]),
  );
  const nestedShape = Object.fromEntries(
    Object.entries(embedded).map(([key, nested]) => {
      const field = schema.shape[key] as z.ZodType;
      return [
        key,
        field instanceof z.ZodArray ? z.array((nested as Resource).hal) : (nested as Resource).hal,
      ];
    }),
  );
  // A new object from the shape, not `schema.extend(…)`: an extended registered schema becomes
  // `allOf` in the document, where an embedded field could not replace its plain form.
  const hal = z
    .object({ ...schema.shape, ...nestedShape, _links: z.object(linkShape) })
    .openapi(`Hal${name}`, { description: `${name} with HAL \`_links\`` });
  const toHal = (item: z.output<S>, base: string) => {
    const body: Record<string, unknown> = { ...item };
    for (const [key, nested] of Object.entries(embedded)) {
      const value = body[key];
      const nestedResource = nested as Resource;
      body[key] = Array.isArray(value)
        ? value.map((entry) => nestedResource.toHal(entry, base))
        : nestedResource.toHal(value as Record<string, unknown>, base);
    }
    const _links: Record<string, Link> = {};
    for (const [rel, build] of Object.entries(links)) {
      const path = typeof build === "function" ? build(item) : build.optional(item);
      if (path !== null) _links[rel] = { href: `${base}${path}` };
    }
    body._links = _links;
    return body;
  };
  // The schema and the function are built from the same `links` and `embedded`; TypeScript cannot
  // follow Object.fromEntries to the shape, so the declared types are stated here, once.
  return { name, schema, hal, toHal, selfPath: links.self } as unknown as Resource<S, HalSchema<S, B>>;
}

/** The list form of `item` under the HAL rel `rel` (`books`, `bookVersions`, `activations`, …). */
export function halList<S extends z.ZodObject, H extends z.ZodObject>(
  rel: string,
  item: Resource<S, H>,
): ResourceList<S, H> {
  const hal = z
    .object({
      _embedded: z.object({ [rel]: z.array(item.hal) }),
      _links: z.object({ self: Link }),
      page: PageInfo.optional(),
    })
    .openapi(`Hal${item.name}List`, { description: `A list of ${item.name} in HAL form` });
  return {
    rel,
    item,
    schema: z.array(item.schema),
    hal: hal as unknown as z.ZodType<HalList<z.output<H>>>,
  };
}

export function wantsHal(c: Context): boolean {
  return (c.req.header("accept") ?? "").toLowerCase().includes(HAL_CONTENT_TYPE);
}

/**
 * Links start at PUBLIC_URL, or else they are root-relative (""): never at the request's own
 * origin, whose host is whatever the client put in its Host header.
 */
export function baseUrlOf(c: Context<AppBindings>): string {
  return c.get("deps").config.publicUrl ?? "";
}
