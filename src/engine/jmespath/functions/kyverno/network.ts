/**
 * `is_external_url`: whether a URL's host is outside the cluster's private networks. Literal IP
 * addresses are decided here (Go's `IsLoopback`/`IsPrivate`); host names go to the HostResolver
 * port, which does the DNS lookup.
 */
import type { FunctionDef } from "../../types.js";
import { stringArg } from "./args.js";
import { goError } from "./errors.js";

/** Go `url.Parse(...).Hostname()`, or Go's error text. */
export function urlHostname(raw: string): string | { error: string } {
  const fail = (msg: string): { error: string } => ({ error: `parse ${JSON.stringify(raw)}: ${msg}` });
  if (/[\x00-\x1f\x7f]/.test(raw)) return fail("net/url: invalid control character in URL");
  let rest = raw.split("#")[0] ?? "";
  if (rest.startsWith(":")) return fail("missing protocol scheme");
  const scheme = /^[a-zA-Z][a-zA-Z0-9+.-]*:/.exec(rest);
  if (scheme) rest = rest.slice(scheme[0].length);
  rest = rest.split("?")[0] ?? "";
  if (!rest.startsWith("//")) return "";
  let authority = rest.slice(2);
  const slash = authority.indexOf("/");
  if (slash >= 0) authority = authority.slice(0, slash);
  const host = authority.slice(authority.lastIndexOf("@") + 1);
  if (host.startsWith("[")) {
    const close = host.indexOf("]");
    if (close < 0) return fail("missing ']' in host");
    const port = host.slice(close + 1);
    if (port !== "" && !/^:[0-9]*$/.test(port)) return fail(`invalid port ${JSON.stringify(port)} after host`);
    return host.slice(1, close);
  }
  const colon = host.lastIndexOf(":");
  if (colon < 0) return host;
  const port = host.slice(colon);
  if (!/^:[0-9]*$/.test(port)) return fail(`invalid port ${JSON.stringify(port)} after host`);
  return host.slice(0, colon);
}

/** Go `net.ParseIP`: 4 or 16 bytes, or undefined. */
function parseIP(s: string): number[] | undefined {
  const v4 = /^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})$/.exec(s);
  if (v4) {
    const bytes = v4.slice(1).map((p) => (p.length > 1 && p.startsWith("0") ? 256 : Number(p)));
    return bytes.every((b) => b <= 255) ? bytes : undefined;
  }
  if (!s.includes(":")) return undefined;
  let text = s;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(":");
  if (text.slice(lastColon + 1).includes(".")) {
    const embedded = parseIP(text.slice(lastColon + 1));
    if (!embedded || embedded.length !== 4) return undefined;
    tail = embedded;
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const groups = (h: string): number[] | undefined => {
    if (h === "") return [];
    const out: number[] = [];
    for (const g of h.split(":")) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = groups(halves[0] ?? "");
  const back = halves.length === 2 ? groups(halves[1] ?? "") : [];
  if (!head || !back) return undefined;
  const fill = 8 - head.length - back.length;
  if ((halves.length === 2 && fill < 1) || (halves.length === 1 && fill !== 0)) return undefined;
  const all = [...head, ...new Array<number>(halves.length === 2 ? fill : 0).fill(0), ...back];
  const bytes = all.flatMap((g) => [g >> 8, g & 0xff]);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** Go's `ip.IsLoopback() || ip.IsPrivate()`. */
function isLoopbackOrPrivate(ip: readonly number[]): boolean {
  let v4: readonly number[] | undefined;
  if (ip.length === 4) v4 = ip;
  else if (ip.slice(0, 10).every((b) => b === 0) && ip[10] === 0xff && ip[11] === 0xff) v4 = ip.slice(12);
  if (v4) {
    const [a = 0, b = 0] = v4;
    return a === 127 || a === 10 || (a === 172 && (b & 0xf0) === 16) || (a === 192 && b === 168);
  }
  const loopback = ip.slice(0, 15).every((b) => b === 0) && ip[15] === 1;
  return loopback || ((ip[0] ?? 0) & 0xfe) === 0xfc;
}

export const networkFunctions: readonly FunctionDef[] = [
  {
    name: "is_external_url",
    args: [{ types: ["string"] }],
    returns: "boolean",
    description:
      "checks whether a URL points outside private and loopback networks; host names are resolved through DNS",
    call: (args, ctx) => {
      const host = urlHostname(stringArg("is_external_url", args, 0));
      if (typeof host !== "string") throw goError(host.error);
      const ip = parseIP(host);
      if (ip !== undefined) return !isLoopbackOrPrivate(ip);
      const r = ctx.ports.hosts.isExternalHost(host);
      if (!r.ok) throw goError(r.error.message);
      return r.value;
    },
  },
];
