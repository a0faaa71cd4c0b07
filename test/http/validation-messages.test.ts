// A field the client did not send is reported as "required" — not in the words of the check its
// type would have made ("Invalid option: expected one of …", "received undefined") — on every
// operation that takes a JSON body; a value that was sent but is wrong keeps its own message.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { REQUIRED_MESSAGE } from "../../src/http/create-router";
import { expectProblem, jsonOf } from "../helpers/responses";
import { createTestApp, type TestApp } from "../helpers/test-app";

interface Schema {
  $ref?: string;
  required?: string[];
  properties?: Record<string, Schema>;
}
interface Operation {
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

const UUID = "6f1c2a4e-8b3d-4c5f-9a7e-1d2b3c4d5e6f";

describe("a missing field says required", () => {
  let t: TestApp;
  let token: string;
  let doc: Document;
  beforeAll(async () => {
    t = await createTestApp();
    token = (await t.admin()).token;
    doc = (await jsonOf(await t.call("GET", "/v3/api-docs"))) as Document;
  });
  afterAll(() => t.close());

  const put = (path: string, json: unknown) => t.call("PUT", path, { token, json });
  const fieldErrors = async (response: Response) =>
    (await expectProblem(response, 400, "VALIDATION_FAILED")).errors ?? [];

  test("on a PUT of each resource, one field left out at a time", async () => {
    const bodies: Record<string, Record<string, unknown>> = {
      "/book/1": { title: "Die Winterreise" },
      "/bookversion/1": { bookId: 1, versionCode: 1, versionName: "1.0" },
      "/activation/1": { bookId: 1, userUuid: UUID },
      "/apk/1": { kind: "bookapp", versionCode: 1, versionName: "1.0" },
    };
    for (const [path, body] of Object.entries(bodies)) {
      for (const field of Object.keys(body)) {
        const { [field]: _left, ...rest } = body;
        const errors = await fieldErrors(await put(path, rest));
        expect(errors, `${path} without ${field}`).toEqual([{ path: field, message: REQUIRED_MESSAGE }]);
      }
    }
  });

  test("an enum field left out (an APK's kind) says required, with the detail naming it", async () => {
    const problem = await expectProblem(
      await put("/apk/1", { versionCode: 3, versionName: "3.0" }),
      400,
      "VALIDATION_FAILED",
    );
    expect(problem.errors).toEqual([{ path: "kind", message: "required" }]);
    expect(problem.detail).toBe("Invalid body: kind: required");
  });

  test("a value that was sent keeps its own message: a wrong choice, null, a wrong type", async () => {
    const wrongKind = await fieldErrors(
      await put("/apk/1", { kind: "tablet", versionCode: 3, versionName: "3" }),
    );
    expect(wrongKind).toEqual([{ path: "kind", message: expect.stringContaining("expected one of") }]);
    const nullTitle = await fieldErrors(await put("/book/1", { title: null }));
    expect(nullTitle).toHaveLength(1);
    expect(nullTitle[0]!.message).not.toBe(REQUIRED_MESSAGE);
    const numberTitle = await fieldErrors(await put("/book/1", { title: 7 }));
    expect(numberTitle[0]!.message).not.toBe(REQUIRED_MESSAGE);
  });

  test("on every operation with a JSON body, each required field of an empty object says required", async () => {
    const resolve = (schema: Schema | undefined): Schema | undefined =>
      schema?.$ref ? doc.components.schemas[schema.$ref.split("/").pop()!] : schema;
    let checked = 0;
    for (const [template, methods] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const schema = resolve(operation.requestBody?.content?.["application/json"]?.schema);
        const required = schema?.required ?? [];
        if (required.length === 0) continue;
        const path = template.replace(/\{(\w+)\}/g, (_, name: string) => (/uuid/i.test(name) ? UUID : "1"));
        const response = await t.call(method.toUpperCase(), path, { token, json: {} });
        const name = `${method.toUpperCase()} ${template}`;
        expect(response.status, name).toBe(400);
        const errors = ((await jsonOf(response)) as { errors?: Array<{ path: string; message: string }> })
          .errors;
        for (const field of required) {
          expect(errors, `${name}: ${field}`).toContainEqual({ path: field, message: REQUIRED_MESSAGE });
        }
        checked++;
      }
    }
    // Every resource's create and replace at least (book, version, activation, code, batch, APK, …).
    expect(checked).toBeGreaterThanOrEqual(10);
  });
});
