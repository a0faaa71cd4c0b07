// A small XML writer for the Atom feeds and the OpenSearch description (README, Reading apps):
// elements are plain values and every text and attribute is escaped on the way out, so no title,
// author or description can open an element of its own.

export interface XmlElement {
  name: string;
  attributes: Record<string, string | number | undefined>;
  children: XmlNode[];
}

export type XmlNode = XmlElement | string;

/** An element; attributes that are undefined are left out, as are children that are null. */
export function el(
  name: string,
  attributes: XmlElement["attributes"] = {},
  ...children: (XmlNode | null | undefined | false)[]
): XmlElement {
  return {
    name,
    attributes,
    children: children.filter(
      (child): child is XmlNode => child !== null && child !== undefined && child !== false,
    ),
  };
}

/**
 * Characters XML 1.0 cannot carry at all (C0 controls but tab, newline and return; lone
 * surrogates; U+FFFE and U+FFFF) are dropped: escaping cannot make them legal.
 */
const NOT_XML =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: dropping what XML cannot carry is the point
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};

export function escapeXml(text: string): string {
  return text.replace(NOT_XML, "").replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}

function write(node: XmlNode, out: string[]): void {
  if (typeof node === "string") {
    out.push(escapeXml(node));
    return;
  }
  out.push("<", node.name);
  for (const [key, value] of Object.entries(node.attributes)) {
    if (value !== undefined) out.push(" ", key, '="', escapeXml(String(value)), '"');
  }
  if (node.children.length === 0) {
    out.push("/>");
    return;
  }
  out.push(">");
  for (const child of node.children) write(child, out);
  out.push("</", node.name, ">");
}

/** The document: the XML declaration and `root`. */
export function renderXml(root: XmlElement): string {
  const out = ['<?xml version="1.0" encoding="UTF-8"?>\n'];
  write(root, out);
  out.push("\n");
  return out.join("");
}
