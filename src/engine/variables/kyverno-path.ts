/**
 * The paths Kyverno's JSON traversal gives each value (`/spec/containers/0/image`, a `/` inside a
 * key written `\/`), and the conversions Kyverno applies to them: to a list of components, to a
 * JMESPath (for `{{@}}`), and with anchors removed (for `$( )` references).
 */
import { goPathIsAbs, goPathJoin } from "./go-path.js";

/** The path of `key` inside the map at `parent`. */
export function objectChildPath(parent: string, key: string): string {
  return `${parent}/${key.replaceAll("/", "\\/")}`;
}

/** The path of item `index` inside the list at `parent`. */
export function arrayChildPath(parent: string, index: number): string {
  return `${parent}/${index}`;
}

/**
 * Splits a traversal path into components: `/` separates, `\` escapes the next character,
 * double quotes group (a `/` inside them does not split) and are dropped. Empty components vanish.
 */
export function parseTraversalPath(raw: string): string[] {
  const out: string[] = [];
  let current = "";
  let escaped = false;
  let quoted = false;
  const flush = (): void => {
    if (current !== "") out.push(current);
    current = "";
  };
  for (const ch of raw) {
    if (escaped) {
      current += ch;
      escaped = false;
    } else if (ch === "\\") {
      escaped = true;
    } else if (ch === '"') {
      quoted = !quoted;
    } else if (ch === "/" && !quoted) {
      flush();
    } else if (ch === "\uFFFD") {
      // Go's decoder reports U+FFFD as the end of the string.
      flush();
      return out;
    } else {
      current += ch;
    }
  }
  if (escaped) current += "\uFFFD";
  flush();
  return out;
}

/** Drops every component up to and including the first `name` (nothing when absent). */
export function skipPast(components: readonly string[], name: string): string[] {
  return components.slice(components.indexOf(name) + 1);
}

/** Drops the first `n` components; leaves nothing when fewer than `n + 1` remain. */
export function skipN(components: readonly string[], n: number): string[] {
  return n > components.length - 1 ? [] : components.slice(n);
}

const MAX_UINT64 = 18446744073709551615n;
const UNQUOTED_FIRST = /^[(A-Z_a-z]/;
const UNQUOTED_ALL = /^[)0-9A-Z_a-z]*$/;

function isIndex(component: string): boolean {
  return /^[0-9]+$/.test(component) && BigInt(component) <= MAX_UINT64;
}

function quoteIdentifier(component: string): string {
  let out = '"';
  for (const ch of component) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp >= 0x20 && ch !== '"' && ch !== "\\") out += ch;
    else if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else out += `\\u${cp.toString(16).padStart(4, "0")}`;
  }
  return `${out}"`;
}

/** Components as a JMESPath: numbers become `[n]`, other names are quoted unless plain identifiers. */
export function componentsToJmesPath(components: readonly string[]): string {
  let out = "";
  for (const c of components) {
    if (isIndex(c)) {
      out += `[${c}]`;
      continue;
    }
    if (out !== "") out += ".";
    out += UNQUOTED_FIRST.test(c) && UNQUOTED_ALL.test(c) ? c : quoteIdentifier(c);
  }
  return out;
}

const ANCHOR = /^([+<=X^])?\(([^\n]+)\)$/;

/** The path with every anchor (`(key)`, `^(key)`, `=(key)`, …) replaced by its key, then cleaned. */
export function removeAnchorsFromPath(path: string): string {
  const parts = path.split("/");
  if (parts[0] === "") parts.shift();
  const keys = parts.map((p) => ANCHOR.exec(p)?.[2] ?? p);
  const joined = goPathJoin(...keys);
  return goPathIsAbs(path) ? `/${joined}` : joined;
}
