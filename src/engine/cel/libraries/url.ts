/**
 * Kubernetes' URL library (k8s.io/apiserver/pkg/cel/library/urls.go): `url`, `isURL` and the URL
 * getters. A URL is what Go's url.ParseRequestURI accepts: an absolute URI with a scheme
 * (`https://host:port/path?query`) or an absolute path (`/path?query`).
 */
import { CelFunctionError, equality, type CelLibrary } from "../library.js";

const TYPE = "kubernetes.URL";

class CelUrl {
  constructor(
    readonly text: string,
    readonly scheme: string,
    readonly host: string,
    readonly path: string,
    readonly rawQuery: string,
  ) {}
  toString(): string {
    return this.text;
  }
}

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/s;

function bad(text: string, why: string): never {
  throw new CelFunctionError(`URL parse error during conversion from string: parse ${JSON.stringify(text)}: ${why}`);
}

function checkEscapes(text: string, part: string): void {
  const m = /%(?![0-9A-Fa-f]{2})(.{0,2})/.exec(part);
  if (m) bad(text, `invalid URL escape ${JSON.stringify(`%${m[1] ?? ""}`)}`);
}

export function parseUrl(text: string): CelUrl {
  if (text === "") bad(text, "empty url");
  if (/[\x00-\x1f\x7f ]/.test(text)) bad(text, "invalid control character in URL");
  let scheme = "";
  let rest = text;
  if (!text.startsWith("/")) {
    const m = SCHEME.exec(text);
    if (m === null) bad(text, text.includes(":") ? "missing protocol scheme" : "invalid URI for request");
    scheme = (m[1] ?? "").toLowerCase();
    rest = m[2] ?? "";
    if (!rest.startsWith("/")) bad(text, "invalid URI for request");
  }
  const q = rest.indexOf("?");
  const rawQuery = q < 0 ? "" : rest.slice(q + 1);
  rest = q < 0 ? rest : rest.slice(0, q);
  let host = "";
  if (scheme !== "" && rest.startsWith("//")) {
    const slash = rest.indexOf("/", 2);
    const authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    rest = slash < 0 ? "" : rest.slice(slash);
    host = authority.slice(authority.lastIndexOf("@") + 1);
    if (host.startsWith("[") && !host.includes("]")) bad(text, "missing ']' in host");
    const port = portOf(host);
    if (port !== "" && !/^\d+$/.test(port)) bad(text, `invalid port ${JSON.stringify(`:${port}`)} after host`);
  }
  checkEscapes(text, rest);
  return new CelUrl(text, scheme, host, rest, rawQuery);
}

function portOf(host: string): string {
  const colon = host.lastIndexOf(":");
  if (colon < 0 || host.slice(colon).includes("]")) return "";
  return host.slice(colon + 1);
}

function hostname(host: string): string {
  const port = portOf(host);
  const h = port === "" && !host.endsWith(":") ? host : host.slice(0, host.lastIndexOf(":"));
  return h.startsWith("[") && h.endsWith("]") ? h.slice(1, -1) : h;
}

function unescape(s: string): string {
  try {
    return decodeURIComponent(s.replaceAll("+", " "));
  } catch {
    return s;
  }
}

/** Go's url.ParseQuery: `a=1&a=2&b` → {a: [1, 2], b: [""]}, keys and values unescaped. */
function query(raw: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const part of raw.split("&")) {
    if (part === "" || part.includes(";")) continue;
    const eq = part.indexOf("=");
    const key = unescape(eq < 0 ? part : part.slice(0, eq));
    const value = eq < 0 ? "" : unescape(part.slice(eq + 1));
    (out[key] ??= []).push(value);
  }
  return out;
}

function isUrl(s: string): boolean {
  try {
    parseUrl(s);
    return true;
  } catch {
    return false;
  }
}

export function urlLibrary(): CelLibrary {
  return {
    name: "k8s.URLs",
    types: [{ name: TYPE, ctor: CelUrl }],
    operators: equality<CelUrl>(TYPE, (a, b) => a.text === b.text),
    functions: [
      { signature: `url(string): ${TYPE}`, handler: parseUrl },
      { signature: "isURL(string): bool", handler: isUrl },
      { signature: `string(${TYPE}): string`, handler: (u: CelUrl) => u.text },
      { signature: `${TYPE}.getScheme(): string`, handler: (u: CelUrl) => u.scheme },
      { signature: `${TYPE}.getHost(): string`, handler: (u: CelUrl) => u.host },
      { signature: `${TYPE}.getHostname(): string`, handler: (u: CelUrl) => hostname(u.host) },
      { signature: `${TYPE}.getPort(): string`, handler: (u: CelUrl) => portOf(u.host) },
      { signature: `${TYPE}.getEscapedPath(): string`, handler: (u: CelUrl) => u.path },
      { signature: `${TYPE}.getQuery(): map<string, list<string>>`, handler: (u: CelUrl) => query(u.rawQuery) },
    ],
  };
}
