/**
 * cel-go ext.Strings(v2) beyond what cel-js has built in (indexOf, lastIndexOf, lowerAscii,
 * upperAscii, split, substring, trim, join): `charAt`, `replace`, `format` and `strings.quote`.
 */
import { CelFunctionError, namespace, type CelLibrary } from "../library.js";
import { formatString } from "./format.js";
import { checkBuildable } from "../value-size.js";

function charAt(s: string, i: bigint): string {
  const cps = [...s];
  if (i < 0n || i > BigInt(cps.length)) throw new CelFunctionError(`index out of range: ${i}`);
  return cps[Number(i)] ?? "";
}

function replace(s: string, from: string, to: string, n: bigint): string {
  // `"x".replace("", big)` grows with the product of the lengths: refused before it is built.
  if (to.length > from.length) {
    const found = from === "" ? s.length + 1 : s.split(from).length - 1;
    const count = n < 0n ? found : Math.min(found, Number(n));
    checkBuildable(s.length + count * (to.length - from.length));
  }
  if (n < 0n) return s.split(from).join(to);
  let out = "";
  let rest = s;
  for (let k = 0n; k < n; k++) {
    const at = rest.indexOf(from);
    if (at < 0) break;
    out += rest.slice(0, at) + to;
    rest = rest.slice(at + from.length);
    if (from === "") {
      out += rest.slice(0, 1);
      rest = rest.slice(1);
      if (rest === "") break;
    }
  }
  return out + rest;
}

/** Go's strconv.Quote for valid UTF-8 text. */
function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\x07") out += "\\a";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (ch === "\v") out += "\\v";
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

export function stringLibrary(): CelLibrary {
  return {
    name: "ext.Strings(v2)",
    ...namespace("strings", "bylaw.StringsNamespace"),
    functions: [
      { signature: "string.charAt(int): string", handler: charAt },
      {
        signature: "string.replace(string, string): string",
        handler: (s: string, a: string, b: string) => replace(s, a, b, -1n),
      },
      { signature: "string.replace(string, string, int): string", handler: replace },
      { signature: "string.format(list<dyn>): string", handler: formatString },
      { signature: "bylaw.StringsNamespace.quote(string): string", handler: (_: unknown, s: string) => quote(s) },
    ],
  };
}
