// A TypeScript file's code without its words: comments, string literals, the text of template
// literals and regular expressions blanked (each character a space, newlines kept), so that a test
// looking for `.orm` finds code, not SQL such as `information_schema.tables` or a comment. Enough
// of a scanner for the project's own sources; the TypeScript compiler takes seconds to load.

// After these a `/` starts a regular expression; after anything else (a name, `)`, `]`) it divides.
const BEFORE_REGEX = new Set([..."(,=:[!&|?{};+-*%<>~^"]);
const KEYWORDS_BEFORE_REGEX = new Set([
  "return",
  "typeof",
  "case",
  "in",
  "of",
  "void",
  "delete",
  "throw",
  "await",
]);

const SPECIAL = /[/"'`{}]/g;

const blank = (text: string) => text.replace(/[^\n]/g, " ");

export function codeOf(text: string): string {
  let out = "";
  let i = 0;
  // The brace depth at which each open `${` of a template literal closes.
  const templates: number[] = [];
  let braces = 0;
  // The code before `i`, from its last word or sign on: what tells a regular expression apart.
  let lastToken = "";
  const regexAllowed = () =>
    lastToken === "" || BEFORE_REGEX.has(lastToken) || KEYWORDS_BEFORE_REGEX.has(lastToken);
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    let end: number;
    if (c === "/" && next === "/") {
      end = text.indexOf("\n", i);
      if (end === -1) end = text.length;
      out += blank(text.slice(i, end));
    } else if (c === "/" && next === "*") {
      end = text.indexOf("*/", i + 2);
      end = end === -1 ? text.length : end + 2;
      out += blank(text.slice(i, end));
    } else if (c === '"' || c === "'") {
      end = i + 1;
      while (end < text.length && text[end] !== c && text[end] !== "\n") end += text[end] === "\\" ? 2 : 1;
      end += 1;
      out += `${c}${blank(text.slice(i + 1, end - 1))}${c}`;
    } else if (c === "`" || (c === "}" && templates.at(-1) === braces)) {
      if (c === "}") templates.pop();
      end = i + 1;
      while (end < text.length && text[end] !== "`" && !(text[end] === "$" && text[end + 1] === "{"))
        end += text[end] === "\\" ? 2 : 1;
      out += `${c}${blank(text.slice(i + 1, end))}`;
      if (text[end] === "`") {
        out += "`";
        end += 1;
      } else {
        out += "${";
        templates.push(braces);
        end += 2;
      }
    } else if (c === "/" && regexAllowed()) {
      end = i + 1;
      let inClass = false;
      while (end < text.length && text[end] !== "\n" && (inClass || text[end] !== "/")) {
        if (text[end] === "[") inClass = true;
        else if (text[end] === "]") inClass = false;
        end += text[end] === "\\" ? 2 : 1;
      }
      end += 1;
      while (end < text.length && /[a-z]/i.test(text[end]!)) end += 1;
      out += blank(text.slice(i, end));
    } else if (c === "{" || c === "}") {
      braces += c === "{" ? 1 : -1;
      out += c;
      lastToken = c;
      i += 1;
      continue;
    } else {
      // Plain code up to the next character that may open or close something: copied as it is.
      SPECIAL.lastIndex = i + 1;
      end = SPECIAL.exec(text)?.index ?? text.length;
      const run = text.slice(i, end);
      out += run;
      const trimmed = run.trimEnd();
      if (trimmed !== "") {
        const word = /[\w$]+$/.exec(trimmed)?.[0];
        lastToken = word ?? trimmed.at(-1)!;
      }
      i = end;
      continue;
    }
    // A literal is a value: a `/` after it divides.
    lastToken = "x";
    i = end;
  }
  return out;
}
