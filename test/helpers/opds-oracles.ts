// The outside readers the OPDS tests check the catalog with (README, Tests): the OPDS 2.0 JSON
// Schemas (read from ../shared/fixtures/opds-schemas, never copied here) through ajv; Readium's
// r2-opds-js, the parser Thorium reads OPDS 1.2 with; and a namespace-aware XML parser
// (@xmldom/xmldom) for what Atom and OPDS 1.2 require of the document itself.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { DOMParser, type Element } from "@xmldom/xmldom";
import Ajv, { type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { TaJsonSerialize } from "r2-lcp-js/dist/es8-es2017/src/serializable";
import { convertOpds1ToOpds2 } from "r2-opds-js/dist/es8-es2017/src/opds/converter";
import {
  initGlobalConverters_GENERIC,
  initGlobalConverters_OPDS,
} from "r2-opds-js/dist/es8-es2017/src/opds/init-globals";
import { OPDS } from "r2-opds-js/dist/es8-es2017/src/opds/opds1/opds";
import { XML } from "r2-utils-js/dist/es8-es2017/src/_utils/xml-js-mapper";
import { requires } from "./requires";

/** Beside the project, as CI lays it out: `../shared/fixtures/opds-schemas`. */
export const OPDS_SCHEMAS_DIR = join(import.meta.dir, "..", "..", "..", "shared", "fixtures", "opds-schemas");

/** Whether the OPDS 2.0 schema tests run (their reason is given otherwise, helpers/requires.ts). */
export function hasOpdsSchemas(): boolean {
  return requires(
    existsSync(join(OPDS_SCHEMAS_DIR, "opds", "feed.schema.json")),
    `the OPDS 2.0 JSON Schemas are not at ${OPDS_SCHEMAS_DIR} (../shared beside the project)`,
  );
}

function schemaFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return schemaFiles(path);
    return name.endsWith(".schema.json") ? [path] : [];
  });
}

export interface Opds2Validators {
  /** The schema's errors for a feed (empty when it is valid). */
  feed(document: unknown): string[];
  authentication(document: unknown): string[];
}

/** ajv (draft-07, formats on) with every schema of the folder registered by its `$id`. */
export function opds2Validators(): Opds2Validators {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  for (const file of schemaFiles(OPDS_SCHEMAS_DIR)) ajv.addSchema(JSON.parse(readFileSync(file, "utf8")));
  const check = (validate: ValidateFunction | undefined) => (document: unknown) => {
    if (!validate) throw new Error("schema not registered");
    return validate(document)
      ? []
      : (validate.errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message}`);
  };
  return {
    feed: check(ajv.getSchema("https://drafts.opds.io/schema/feed.schema.json")),
    authentication: check(ajv.getSchema("https://drafts.opds.io/schema/authentication.schema.json")),
  };
}

initGlobalConverters_OPDS();
initGlobalConverters_GENERIC();

/** A well-formed XML document, or an Error naming what the parser found wrong. */
export function parseXml(text: string) {
  const problems: string[] = [];
  const document = new DOMParser({
    onError: (level, message) => {
      if (level !== "warning") problems.push(message);
    },
  }).parseFromString(text, "application/xml");
  if (problems.length > 0) throw new Error(`not well-formed XML: ${problems.join("; ")}`);
  return document;
}

/** What Thorium makes of an OPDS 1.2 feed: r2-opds-js's OPDS object and its OPDS 2 conversion. */
export function readOpds1(text: string) {
  const opds1 = XML.deserialize<OPDS>(
    // The DOM lib's Document type, which the tests' tsconfig leaves out: xmldom's document is what it reads.
    parseXml(text) as unknown as Parameters<typeof XML.deserialize>[0],
    OPDS,
  );
  const asOpds2 = TaJsonSerialize(convertOpds1ToOpds2(opds1)) as {
    metadata: { title: string; numberOfItems?: number; itemsPerPage?: number };
    links?: { rel?: string | string[]; href: string; type?: string }[];
    navigation?: { rel?: string | string[]; href: string; title?: string; type?: string }[];
    publications?: {
      metadata: { title: string; identifier: string; author?: unknown; language?: unknown };
      links: { rel?: string | string[]; href: string; type?: string }[];
      images?: { rel?: string | string[]; href: string; type?: string }[];
    }[];
  };
  return { opds1, opds2: asOpds2 };
}

export const ATOM_NS = "http://www.w3.org/2005/Atom";
export const OPDS_NS = "http://opds-spec.org/2010/catalog";
export const DC_NS = "http://purl.org/dc/terms/";
export const OPENSEARCH_NS = "http://a9.com/-/spec/opensearch/1.1/";

function childrenNamed(parent: Element, ns: string, name: string): Element[] {
  const found: Element[] = [];
  for (let node = parent.firstChild; node; node = node.nextSibling) {
    const element = node as Element;
    if (node.nodeType === 1 && element.namespaceURI === ns && element.localName === name) found.push(element);
  }
  return found;
}

const ATOM_MEDIA = /^application\/atom\+xml;profile=opds-catalog;kind=(navigation|acquisition)$/;

/**
 * The checks of Atom (RFC 4287) and OPDS 1.2 a parser can make: the root is an Atom `feed`; the
 * feed and each entry have exactly one `id`, `title` and `updated` (an RFC 3339 date); every
 * element is in a declared namespace (Atom, OPDS, Dublin Core, OpenSearch); every link has an
 * `href` and a `type`, links to catalog feeds the OPDS media type, acquisition links one of the
 * file types; an acquisition feed's entries each have an acquisition link. Returns the feed element.
 */
export function checkAtomFeed(text: string, kind: "navigation" | "acquisition"): Element {
  const document = parseXml(text);
  const feed = document.documentElement as unknown as Element;
  if (feed.namespaceURI !== ATOM_NS || feed.localName !== "feed")
    throw new Error("the root is not an Atom feed");
  const problems: string[] = [];
  const known = new Set([ATOM_NS, OPDS_NS, DC_NS, OPENSEARCH_NS]);
  const walk = (element: Element) => {
    if (!known.has(element.namespaceURI ?? "")) problems.push(`${element.tagName} is in no known namespace`);
    for (let node = element.firstChild; node; node = node.nextSibling)
      if (node.nodeType === 1) walk(node as Element);
  };
  walk(feed);
  const required = (parent: Element, where: string) => {
    for (const name of ["id", "title", "updated"]) {
      const found = childrenNamed(parent, ATOM_NS, name);
      if (found.length !== 1) problems.push(`${where} has ${found.length} <${name}>`);
    }
    const updated = childrenNamed(parent, ATOM_NS, "updated")[0]?.textContent ?? "";
    if (
      Number.isNaN(Date.parse(updated)) ||
      !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(updated)
    )
      problems.push(`${where} <updated> is not RFC 3339: ${updated}`);
  };
  required(feed, "the feed");
  if (childrenNamed(feed, ATOM_NS, "author").length === 0) problems.push("the feed has no <author>");
  const links = (parent: Element) => childrenNamed(parent, ATOM_NS, "link");
  for (const link of links(feed)) {
    const type = link.getAttribute("type") ?? "";
    if (!link.getAttribute("href")) problems.push(`a feed link (${link.getAttribute("rel")}) has no href`);
    const rel = link.getAttribute("rel") ?? "";
    if (rel === "search" ? type !== "application/opensearchdescription+xml" : !ATOM_MEDIA.test(type))
      problems.push(`feed link ${rel} has type ${type}`);
  }
  for (const [index, entry] of childrenNamed(feed, ATOM_NS, "entry").entries()) {
    required(entry, `entry ${index}`);
    const entryLinks = links(entry);
    for (const link of entryLinks) {
      if (!link.getAttribute("href") || !link.getAttribute("type"))
        problems.push(`entry ${index} has a link without href or type`);
    }
    const rels = entryLinks.map((link) => link.getAttribute("rel") ?? "");
    if (kind === "acquisition") {
      const acquisition = entryLinks.filter(
        (link) => link.getAttribute("rel") === "http://opds-spec.org/acquisition",
      );
      if (acquisition.length !== 1)
        problems.push(`entry ${index} has ${acquisition.length} acquisition links`);
      for (const link of acquisition) {
        if (!["application/epub+zip", "application/zip"].includes(link.getAttribute("type") ?? ""))
          problems.push(`entry ${index}'s acquisition has type ${link.getAttribute("type")}`);
      }
      for (const link of entryLinks.filter((l) =>
        (l.getAttribute("rel") ?? "").startsWith("http://opds-spec.org/image"),
      ))
        if (link.getAttribute("type") !== "image/png")
          problems.push(`entry ${index}'s image is not image/png`);
    } else {
      if (entryLinks.length !== 1 || !ATOM_MEDIA.test(entryLinks[0]?.getAttribute("type") ?? ""))
        problems.push(`navigation entry ${index} does not link to one catalog feed (${rels.join(", ")})`);
      if (childrenNamed(entry, ATOM_NS, "content").length !== 1)
        problems.push(`navigation entry ${index} has no <content>`);
    }
  }
  if (problems.length > 0) throw new Error(problems.join("\n"));
  return feed;
}

/** The OpenSearch 1.1 description's checks: its root, ShortName, Description and an Atom Url template. */
export function checkOpenSearch(text: string): string {
  const root = parseXml(text).documentElement as unknown as Element;
  if (root.namespaceURI !== OPENSEARCH_NS || root.localName !== "OpenSearchDescription")
    throw new Error("not an OpenSearch description");
  for (const name of ["ShortName", "Description"]) {
    if (childrenNamed(root, OPENSEARCH_NS, name).length !== 1) throw new Error(`no ${name}`);
  }
  const url = childrenNamed(root, OPENSEARCH_NS, "Url").find((u) =>
    ATOM_MEDIA.test(u.getAttribute("type") ?? ""),
  );
  const template = url?.getAttribute("template") ?? "";
  if (!template.includes("{searchTerms}")) throw new Error("no Atom Url template with {searchTerms}");
  return template;
}

/** An element's child elements of the Atom namespace named `name` (for the tests' own reading). */
export function atomChildren(parent: Element, name: string): Element[] {
  return childrenNamed(parent, ATOM_NS, name);
}
