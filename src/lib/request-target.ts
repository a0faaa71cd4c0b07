// The path and query a request asked for, read from its URL without the scheme and host. The host
// part of `Request.url` comes from the client's Host header (or, for an HTTP/1.0 request without
// one, is missing, and `new URL()` throws): nothing we answer may depend on it.

const SCHEME_AND_AUTHORITY = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

export interface RequestTarget {
  /** As sent, percent-encoding kept: `/book/7`. */
  pathname: string;
  /** `?page=1&size=20`, or "" without a query. */
  search: string;
}

export function requestTargetOf(url: string): RequestTarget {
  const target = url.replace(SCHEME_AND_AUTHORITY, "");
  const hash = target.indexOf("#");
  const withoutHash = hash < 0 ? target : target.slice(0, hash);
  const question = withoutHash.indexOf("?");
  const pathname = question < 0 ? withoutHash : withoutHash.slice(0, question);
  return {
    pathname: pathname.startsWith("/") ? pathname : `/${pathname}`,
    search: question < 0 || question === withoutHash.length - 1 ? "" : withoutHash.slice(question),
  };
}

/**
 * `url` with a scheme and authority: Bun gives a request without a Host header (HTTP/1.0, as
 * load balancers probe) the path alone, which `new Request()` and hono's getPath refuse. The
 * stand-in authority is never read (see above).
 */
export function absoluteUrlOf(url: string): string {
  return url.startsWith("/") ? `http://host${url}` : url;
}
