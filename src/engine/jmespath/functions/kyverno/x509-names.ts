/**
 * Pieces of Go's x509 JSON shape: `pkix.Name`, general names (DNS, e-mail, IP, URI), `net.IP`
 * text and `url.URL` structs, as Kyverno's `x509_decode` prints them.
 */
import type { JsonObject, JsonValue } from "../../../api/json.js";
import { asn1String, children, expect, isContext, oidArcs, oidString, TAG, type Element } from "./asn1.js";
import { base64Encode } from "./base64.js";
import { utf8DecodeLossy } from "./go-text.js";

const NAME_FIELDS: Record<string, string> = {
  "2.5.4.6": "Country",
  "2.5.4.10": "Organization",
  "2.5.4.11": "OrganizationalUnit",
  "2.5.4.7": "Locality",
  "2.5.4.8": "Province",
  "2.5.4.9": "StreetAddress",
  "2.5.4.17": "PostalCode",
};

/** An attribute value as Go's asn1 reads it into `interface{}`. */
export function attributeValue(el: Element): JsonValue {
  const s = asn1String(el, utf8DecodeLossy);
  if (s !== undefined) return s;
  if (el.cls === 0 && el.tag === TAG.INTEGER) return Number(el.body.reduce((v, b) => v * 256 + b, 0));
  if (el.cls === 0 && el.tag === TAG.BOOLEAN) return (el.body[0] ?? 0) !== 0;
  return base64Encode(el.full);
}

/** `pkix.Name` filled from an RDN sequence, with every attribute also listed under `Names`. */
export function parseName(el: Element): JsonObject {
  const lists: Record<string, string[] | null> = {
    Country: null,
    Organization: null,
    OrganizationalUnit: null,
    Locality: null,
    Province: null,
    StreetAddress: null,
    PostalCode: null,
  };
  let serial = "";
  let commonName = "";
  const names: JsonValue[] = [];
  for (const rdn of children(expect(el, TAG.SEQUENCE, "name"))) {
    for (const atv of children(rdn)) {
      const [type, value] = children(atv);
      if (type === undefined || value === undefined) continue;
      const arcs = oidArcs(type);
      const v = attributeValue(value);
      names.push({ Type: arcs, Value: v });
      if (typeof v !== "string") continue;
      const oid = oidString(arcs);
      const field = NAME_FIELDS[oid];
      if (field !== undefined) (lists[field] ??= []).push(v);
      else if (oid === "2.5.4.3") commonName = v;
      else if (oid === "2.5.4.5") serial = v;
    }
  }
  return {
    Country: lists["Country"] ?? null,
    Organization: lists["Organization"] ?? null,
    OrganizationalUnit: lists["OrganizationalUnit"] ?? null,
    Locality: lists["Locality"] ?? null,
    Province: lists["Province"] ?? null,
    StreetAddress: lists["StreetAddress"] ?? null,
    PostalCode: lists["PostalCode"] ?? null,
    SerialNumber: serial,
    CommonName: commonName,
    Names: names.length > 0 ? names : null,
    ExtraNames: null,
  };
}

/** Go's `net.IP.String()`. */
export function ipString(b: Uint8Array): string {
  const v4mapped = b.length === 16 && b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
  if (b.length === 4 || v4mapped) return [...b.subarray(b.length - 4)].join(".");
  if (b.length !== 16) return `?${[...b].map((x) => x.toString(16).padStart(2, "0")).join("")}`;
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((b[i] ?? 0) << 8) | (b[i + 1] ?? 0));
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) [bestStart, bestLen] = [i, j - i];
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(":");
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLen).join(":")}`;
}

/** A `url.URL` as Go's JSON encoder prints the struct (a simplified `url.Parse`). */
function urlJson(raw: string): JsonObject {
  let rest = raw;
  let fragment = "";
  const hash = rest.indexOf("#");
  if (hash >= 0) [rest, fragment] = [rest.slice(0, hash), rest.slice(hash + 1)];
  let scheme = "";
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (m) [scheme, rest] = [(m[1] ?? "").toLowerCase(), rest.slice(m[0].length)];
  let query = "";
  const q = rest.indexOf("?");
  if (q >= 0) [rest, query] = [rest.slice(0, q), rest.slice(q + 1)];
  let host = "";
  let opaque = "";
  let user: JsonValue = null;
  if (rest.startsWith("//")) {
    const end = rest.slice(2).search(/\//);
    const authority = end < 0 ? rest.slice(2) : rest.slice(2, 2 + end);
    rest = end < 0 ? "" : rest.slice(2 + end);
    const at = authority.lastIndexOf("@");
    if (at >= 0) user = {};
    host = at >= 0 ? authority.slice(at + 1) : authority;
  } else if (scheme !== "" && !rest.startsWith("/")) {
    [opaque, rest] = [rest, ""];
  }
  const decode = (s: string): string => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  return {
    Scheme: scheme,
    Opaque: opaque,
    User: user,
    Host: host,
    Path: decode(rest),
    RawPath: "",
    OmitHost: false,
    ForceQuery: false,
    RawQuery: query,
    Fragment: decode(fragment),
    RawFragment: "",
  };
}

interface GeneralNames {
  dns: string[];
  emails: string[];
  ips: string[];
  uris: JsonObject[];
}

/** GeneralNames (SubjectAltName): [1] e-mail, [2] DNS, [6] URI, [7] IP. */
export function parseGeneralNames(seq: Element): GeneralNames {
  const out: GeneralNames = { dns: [], emails: [], ips: [], uris: [] };
  for (const gn of children(seq)) {
    const text = String.fromCharCode(...gn.body);
    if (isContext(gn, 1)) out.emails.push(text);
    else if (isContext(gn, 2)) out.dns.push(text);
    else if (isContext(gn, 6)) out.uris.push(urlJson(text));
    else if (isContext(gn, 7)) out.ips.push(ipString(gn.body));
  }
  return out;
}
