import { describe, expect, test } from "bun:test";
import { acceptsOpds2 } from "../../src/routes/opds/accept";

describe("GET /opds's content negotiation", () => {
  test.each([
    ["application/opds+json", true],
    ["application/opds+json, application/atom+xml;q=0.9", true],
    ["Application/OPDS+JSON ; q=0.8, */*;q=0.1", true],
    ["application/atom+xml;profile=opds-catalog, application/opds+json", true],
    ["application/atom+xml, application/opds+json;q=0.5", false],
    ["application/opds+json;q=0", false],
    ["*/*", false],
    ["application/json", false],
    ["", false],
  ])("%p → OPDS 2: %p", (accept, expected) => {
    expect(acceptsOpds2(accept)).toBe(expected);
  });
});
