/** Certificate extensions, read into the fields Go's `x509.Certificate` fills from them. */
import type { JsonObject, JsonValue } from "../../../api/json.js";
import {
  Asn1Error,
  bitString,
  boolean,
  children,
  integer,
  isContext,
  isUniversal,
  oidArcs,
  oidString,
  parseElement,
  TAG,
  type Element,
} from "./asn1.js";
import { base64Encode } from "./base64.js";
import { ipString, parseGeneralNames } from "./x509-names.js";

const EXT_KEY_USAGE: Record<string, number> = {
  "2.5.29.37.0": 0,
  "1.3.6.1.5.5.7.3.1": 1,
  "1.3.6.1.5.5.7.3.2": 2,
  "1.3.6.1.5.5.7.3.3": 3,
  "1.3.6.1.5.5.7.3.4": 4,
  "1.3.6.1.5.5.7.3.5": 5,
  "1.3.6.1.5.5.7.3.6": 6,
  "1.3.6.1.5.5.7.3.7": 7,
  "1.3.6.1.5.5.7.3.8": 8,
  "1.3.6.1.5.5.7.3.9": 9,
  "1.3.6.1.4.1.311.10.3.3": 10,
  "2.16.840.1.113730.4.1": 11,
  "1.3.6.1.4.1.311.2.1.22": 12,
  "1.3.6.1.4.1.311.61.1.1": 13,
};

/** The extension-derived fields with Go's zero values (nil slices print as null). */
export function extensionDefaults(): JsonObject {
  return {
    KeyUsage: 0,
    ExtKeyUsage: null,
    UnknownExtKeyUsage: null,
    BasicConstraintsValid: false,
    IsCA: false,
    MaxPathLen: 0,
    MaxPathLenZero: false,
    SubjectKeyId: null,
    AuthorityKeyId: null,
    OCSPServer: null,
    IssuingCertificateURL: null,
    DNSNames: null,
    EmailAddresses: null,
    IPAddresses: null,
    URIs: null,
    PermittedDNSDomainsCritical: false,
    PermittedDNSDomains: null,
    ExcludedDNSDomains: null,
    PermittedIPRanges: null,
    ExcludedIPRanges: null,
    PermittedEmailAddresses: null,
    ExcludedEmailAddresses: null,
    PermittedURIDomains: null,
    ExcludedURIDomains: null,
    CRLDistributionPoints: null,
    PolicyIdentifiers: null,
    Policies: null,
    InhibitAnyPolicy: -1,
    InhibitAnyPolicyZero: false,
    InhibitPolicyMapping: -1,
    InhibitPolicyMappingZero: false,
    RequireExplicitPolicy: -1,
    RequireExplicitPolicyZero: false,
    PolicyMappings: null,
    UnhandledCriticalExtensions: null,
  };
}

function push(out: JsonObject, field: string, values: JsonValue[]): void {
  if (values.length === 0) return;
  const existing = out[field];
  out[field] = Array.isArray(existing) ? [...existing, ...values] : values;
}

function text(el: Element): string {
  return String.fromCharCode(...el.body);
}

function nameConstraints(value: Element, critical: boolean, out: JsonObject): void {
  out["PermittedDNSDomainsCritical"] = critical;
  for (const subtrees of children(value)) {
    const prefix = isContext(subtrees, 0) ? "Permitted" : isContext(subtrees, 1) ? "Excluded" : undefined;
    if (prefix === undefined) continue;
    for (const subtree of children(subtrees)) {
      const base = children(subtree)[0];
      if (base === undefined) continue;
      if (isContext(base, 2)) push(out, `${prefix}DNSDomains`, [text(base)]);
      else if (isContext(base, 1)) push(out, `${prefix}EmailAddresses`, [text(base)]);
      else if (isContext(base, 6)) push(out, `${prefix}URIDomains`, [text(base)]);
      else if (isContext(base, 7)) {
        const half = base.body.length / 2;
        push(out, `${prefix}IPRanges`, [
          { IP: ipString(base.body.subarray(0, half)), Mask: base64Encode(base.body.subarray(half)) },
        ]);
      }
    }
  }
}

/** Reads one extension into `out`; returns false when it is not understood. */
function applyExtension(oid: string, critical: boolean, value: Element, out: JsonObject): boolean {
  switch (oid) {
    case "2.5.29.15": {
      const { bytes } = bitString(value);
      let usage = 0;
      for (let i = 0; i < 9; i++) if (((bytes[i >> 3] ?? 0) >> (7 - (i & 7))) & 1) usage |= 1 << i;
      out["KeyUsage"] = usage;
      return true;
    }
    case "2.5.29.19": {
      const [first, second] = children(value);
      let isCA = false;
      let pathLen = -1;
      if (isUniversal(first, TAG.BOOLEAN)) isCA = boolean(first);
      const lenEl = isUniversal(first, TAG.INTEGER) ? first : second;
      if (isUniversal(lenEl, TAG.INTEGER)) pathLen = Number(integer(lenEl));
      Object.assign(out, {
        BasicConstraintsValid: true,
        IsCA: isCA,
        MaxPathLen: pathLen,
        MaxPathLenZero: pathLen === 0,
      });
      return true;
    }
    case "2.5.29.17": {
      const names = parseGeneralNames(value);
      push(out, "DNSNames", names.dns);
      push(out, "EmailAddresses", names.emails);
      push(out, "IPAddresses", names.ips);
      push(out, "URIs", names.uris);
      return names.dns.length + names.emails.length + names.ips.length + names.uris.length > 0;
    }
    case "2.5.29.30":
      nameConstraints(value, critical, out);
      return true;
    case "2.5.29.31":
      for (const dp of children(value)) {
        const name = children(dp).find((c) => isContext(c, 0));
        const full = name ? children(name).find((c) => isContext(c, 0)) : undefined;
        if (full)
          push(
            out,
            "CRLDistributionPoints",
            children(full)
              .filter((g) => isContext(g, 6))
              .map(text),
          );
      }
      return true;
    case "2.5.29.35": {
      const keyId = children(value).find((c) => isContext(c, 0));
      if (keyId) out["AuthorityKeyId"] = base64Encode(keyId.body);
      return true;
    }
    case "2.5.29.37":
      for (const el of children(value)) {
        const arcs = oidArcs(el);
        const known = EXT_KEY_USAGE[oidString(arcs)];
        if (known !== undefined) push(out, "ExtKeyUsage", [known]);
        else push(out, "UnknownExtKeyUsage", [arcs]);
      }
      return true;
    case "2.5.29.14":
      out["SubjectKeyId"] = base64Encode(value.body);
      return true;
    case "2.5.29.32":
      for (const info of children(value)) {
        const id = children(info)[0];
        if (!id) continue;
        const arcs = oidArcs(id);
        push(out, "PolicyIdentifiers", [arcs]);
        push(out, "Policies", [oidString(arcs)]);
      }
      return true;
    case "2.5.29.33":
      for (const mapping of children(value)) {
        const [issuer, subject] = children(mapping);
        if (issuer && subject)
          push(out, "PolicyMappings", [
            { IssuerDomainPolicy: oidString(oidArcs(issuer)), SubjectDomainPolicy: oidString(oidArcs(subject)) },
          ]);
      }
      return true;
    case "2.5.29.36":
      for (const c of children(value)) {
        const n = Number(c.body.reduce((v, b) => v * 256 + b, 0));
        const field = isContext(c, 0) ? "RequireExplicitPolicy" : isContext(c, 1) ? "InhibitPolicyMapping" : undefined;
        if (field) Object.assign(out, { [field]: n, [`${field}Zero`]: n === 0 });
      }
      return true;
    case "2.5.29.54": {
      const n = Number(integer(value));
      Object.assign(out, { InhibitAnyPolicy: n, InhibitAnyPolicyZero: n === 0 });
      return true;
    }
    case "1.3.6.1.5.5.7.1.1":
      for (const ad of children(value)) {
        const [method, location] = children(ad);
        if (!method || !isContext(location, 6)) continue;
        const m = oidString(oidArcs(method));
        if (m === "1.3.6.1.5.5.7.48.1") push(out, "OCSPServer", [text(location)]);
        else if (m === "1.3.6.1.5.5.7.48.2") push(out, "IssuingCertificateURL", [text(location)]);
      }
      return true;
    default:
      return false;
  }
}

/** Reads `Extensions` (a SEQUENCE OF Extension) into Go's fields; returns the raw extension list. */
export function processExtensions(seq: Element, out: JsonObject): JsonValue[] {
  const list: JsonValue[] = [];
  for (const ext of children(seq)) {
    const parts = children(ext);
    const id = parts[0];
    if (!isUniversal(id, TAG.OID)) throw new Asn1Error("malformed extension OID field");
    const critical = isUniversal(parts[1], TAG.BOOLEAN) ? boolean(parts[1]) : false;
    const octets = parts[parts.length - 1];
    if (!isUniversal(octets, TAG.OCTET_STRING)) throw new Asn1Error("malformed extension value field");
    const arcs = oidArcs(id);
    list.push({ Id: arcs, Critical: critical, Value: base64Encode(octets.body) });
    let handled = false;
    try {
      handled = applyExtension(oidString(arcs), critical, parseElement(octets.body), out);
    } catch (e) {
      if (!(e instanceof Asn1Error)) throw e;
      throw new Asn1Error(`malformed extension ${oidString(arcs)}`);
    }
    if (critical && !handled) push(out, "UnhandledCriticalExtensions", [arcs]);
  }
  return list;
}
