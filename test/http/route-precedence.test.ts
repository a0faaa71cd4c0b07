// One precedence rule, applied by createApp whatever the order of the routers: every operation's
// own path (its parameters filled with a value no literal segment has) reaches that operation,
// and `/book/my-books` the reader's list rather than `/book/{id}`, with the routers in their
// order, reversed or shuffled. The document's order stays routes/index.ts's.
import { describe, expect, test } from "bun:test";
import { OpenAPIHono } from "@hono/zod-openapi";
import { matchedRoutes } from "hono/route";
import { registeredRoutes } from "../../src/http/library-internals";
import { mountRouters, type Router } from "../../src/http/mount-routers";
import type { AppBindings } from "../../src/http/types";
import { routerSections } from "../../src/routes";

/** An app that answers which route pattern would handle a request, without running it. */
function whoAnswers(sections: readonly (readonly Router[])[]) {
  const app = new OpenAPIHono<AppBindings>();
  // Registered first, so it runs first and sees every match, in the order hono would run them.
  app.use(async (c) => c.text(matchedRoutes(c).find((route) => route.method !== "ALL")?.path ?? "none"));
  mountRouters(app, sections);
  return async (method: string, path: string) => (await app.request(path, { method })).text();
}

/** Each operation as [method, path with its parameters filled, hono's pattern]. */
const operations = routerSections
  .flat()
  .flatMap((router) => registeredRoutes(router.openAPIRegistry))
  .map((route) => [
    route.method.toUpperCase(),
    route.path.replaceAll(/\{[^}]+\}/g, "7"),
    route.path.replaceAll(/\{([^}]+)\}/g, ":$1"),
  ]);

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const orders: [string, (readonly Router[])[]][] = [
  ["as listed", [...routerSections]],
  ["reversed", [...routerSections].reverse()],
  [
    "reversed router by router",
    routerSections
      .flat()
      .reverse()
      .map((router) => [router]),
  ],
  ...[1, 2, 3].map((seed): [string, Router[][]] => [
    `shuffled (seed ${seed})`,
    shuffled(routerSections.flat(), seed).map((router) => [router]),
  ]),
];

describe("route precedence", () => {
  test("the routers have fixed segments that compete with parameters (guards the test)", () => {
    expect(operations.length).toBeGreaterThan(70);
    expect(operations).toContainEqual(["GET", "/book/my-books", "/book/my-books"]);
    expect(operations).toContainEqual(["GET", "/book/7", "/book/:id"]);
  });

  for (const [name, sections] of orders) {
    test(`every operation answers its own path, routers ${name}`, async () => {
      const answer = whoAnswers(sections);
      for (const [method, path, pattern] of operations) {
        expect(`${method} ${path} → ${await answer(method!, path!)}`).toBe(`${method} ${path} → ${pattern}`);
      }
      expect(await answer("GET", "/book/my-books")).toBe("/book/my-books");
      expect(await answer("GET", "/book/count")).toBe("/book/count");
      expect(await answer("GET", "/apk/active")).toBe("/apk/active");
      expect(await answer("GET", "/activation-qr-code/batch/7")).toBe("/activation-qr-code/batch/:id");
    });
  }

  test("the document's order is the sections', whatever routing does", () => {
    const ids = (sections: readonly (readonly Router[])[]) => {
      const app = new OpenAPIHono<AppBindings>();
      mountRouters(app, sections);
      return registeredRoutes(app.openAPIRegistry).map((route) => route.operationId);
    };
    const listed = ids(routerSections);
    expect(listed.slice(0, 15)).toEqual([
      "getHealth",
      "login",
      "logout",
      "getMe",
      "register",
      "getUser",
      "listUsers",
      "createDeviceToken",
      "listDeviceTokens",
      "revokeDeviceToken",
      "getEntitlementJwks",
      "getEntitlementRevocations",
      "getEntitlements",
      "listBooksWithVersionAndActivation",
      "listMyBooks",
    ]);
    expect(ids([...routerSections].reverse()).toSorted()).toEqual(listed.toSorted());
  });
});
