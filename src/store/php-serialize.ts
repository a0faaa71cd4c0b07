// Reads the PHP serialize() format WordPress uses for `<prefix>capabilities` in wp_usermeta.
// Lengths in `s:N:"…"` count UTF-8 bytes, so the parser walks a byte buffer, never the JS string.

export type PhpValue = null | boolean | number | string | PhpArray;
// A Map keeps PHP's key order and tells int key 1 from string key "a".
type PhpArray = Map<number | string, PhpValue>;

export class PhpSerializeError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`${message} at byte ${offset}`);
    this.name = "PhpSerializeError";
  }
}

// Capabilities are one level deep; the limit only keeps hostile input from exhausting the stack.
const MAX_DEPTH = 64;
const INT_TOKEN = /^[+-]?\d+$/;
// `1`, `1.`, `1.5` or `.5`, then an optional exponent. The dot and its digits form one optional
// group, so a run of digits can be split only one way (`\d+\.?\d*` was quadratic in a long run).
const DOUBLE_TOKEN = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const utf8 = new TextDecoder("utf-8", { fatal: true });

class Parser {
  private pos = 0;

  constructor(private readonly bytes: Buffer) {}

  parseDocument(): PhpValue {
    const value = this.parseValue(0);
    if (this.pos !== this.bytes.length) throw this.error("trailing data");
    return value;
  }

  private error(message: string): PhpSerializeError {
    return new PhpSerializeError(message, this.pos);
  }

  private expect(text: string): void {
    for (let i = 0; i < text.length; i++) {
      if (this.bytes[this.pos] !== text.charCodeAt(i)) {
        throw this.error(this.pos >= this.bytes.length ? "unexpected end of input" : `expected "${text}"`);
      }
      this.pos++;
    }
  }

  // Tokens (numbers, lengths) are ASCII, so a byte-per-char read is exact.
  private readToken(terminator: string): string {
    const end = this.bytes.indexOf(terminator.charCodeAt(0), this.pos);
    if (end === -1) throw this.error(`missing "${terminator}"`);
    const token = this.bytes.toString("latin1", this.pos, end);
    this.pos = end + 1;
    return token;
  }

  private readLength(terminator: string): number {
    const start = this.pos;
    const token = this.readToken(terminator);
    const length = Number(token);
    if (!/^\d+$/.test(token) || !Number.isSafeInteger(length)) {
      throw new PhpSerializeError(`invalid length "${token}"`, start);
    }
    return length;
  }

  private parseValue(depth: number): PhpValue {
    const type = String.fromCharCode(this.bytes[this.pos] ?? 0);
    const start = this.pos;
    switch (type) {
      case "N":
        this.expect("N;");
        return null;
      case "b": {
        this.expect("b:");
        const token = this.readToken(";");
        if (token !== "0" && token !== "1") throw new PhpSerializeError(`invalid bool "${token}"`, start);
        return token === "1";
      }
      case "i": {
        this.expect("i:");
        const token = this.readToken(";");
        if (!INT_TOKEN.test(token)) throw new PhpSerializeError(`invalid int "${token}"`, start);
        return Number(token);
      }
      case "d": {
        this.expect("d:");
        const token = this.readToken(";");
        if (token === "INF") return Number.POSITIVE_INFINITY;
        if (token === "-INF") return Number.NEGATIVE_INFINITY;
        if (token === "NAN") return Number.NaN;
        if (!DOUBLE_TOKEN.test(token)) throw new PhpSerializeError(`invalid double "${token}"`, start);
        return Number(token);
      }
      case "s":
        return this.parseString();
      case "a":
        return this.parseArray(depth);
      default:
        throw this.error(
          this.pos >= this.bytes.length ? "unexpected end of input" : `unsupported type "${type}"`,
        );
    }
  }

  private parseString(): string {
    this.expect("s:");
    const length = this.readLength(":");
    this.expect('"');
    const end = this.pos + length;
    // The closing `";` must sit exactly after N bytes; anything else means N is wrong.
    if (end + 2 > this.bytes.length || this.bytes[end] !== 0x22 || this.bytes[end + 1] !== 0x3b) {
      throw this.error(`string length ${length} does not match`);
    }
    let text: string;
    try {
      text = utf8.decode(this.bytes.subarray(this.pos, end));
    } catch {
      throw this.error("string is not valid UTF-8");
    }
    this.pos = end + 2;
    return text;
  }

  private parseArray(depth: number): PhpArray {
    if (depth >= MAX_DEPTH) throw this.error("arrays nested too deeply");
    this.expect("a:");
    const count = this.readLength(":");
    this.expect("{");
    const result: PhpArray = new Map();
    for (let i = 0; i < count; i++) {
      const keyType = this.bytes[this.pos];
      if (keyType !== 0x69 && keyType !== 0x73) throw this.error("array key must be int or string");
      const key = this.parseValue(depth + 1) as number | string;
      result.set(key, this.parseValue(depth + 1));
    }
    this.expect("}");
    return result;
  }
}

export function parsePhpSerialized(text: string): PhpValue {
  return new Parser(Buffer.from(text, "utf8")).parseDocument();
}

// PHP's truthiness, which is what WordPress applies to capability values.
function isTruthy(value: PhpValue): boolean {
  if (value instanceof Map) return value.size > 0;
  if (typeof value === "string") return value !== "" && value !== "0";
  if (typeof value === "number") return value !== 0;
  return value === true;
}

// A damaged meta value must not lock the service, nor grant anything: it reads as "no roles".
export function rolesFromCapabilities(text: string): string[] {
  let parsed: PhpValue;
  try {
    parsed = parsePhpSerialized(text);
  } catch (error) {
    if (error instanceof PhpSerializeError) return [];
    throw error;
  }
  if (!(parsed instanceof Map)) return [];
  const roles: string[] = [];
  for (const [key, value] of parsed) {
    if (isTruthy(value)) roles.push(String(key));
  }
  return roles;
}

export function serializeCapabilities(roles: string[]): string {
  const unique = [...new Set(roles)];
  const entries = unique.map((role) => `s:${Buffer.byteLength(role)}:"${role}";b:1;`);
  return `a:${unique.length}:{${entries.join("")}}`;
}
