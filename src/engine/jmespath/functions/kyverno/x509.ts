/**
 * `x509_decode`: a PEM certificate or certificate request → the JSON of Go's `x509.Certificate`
 * or `x509.CertificateRequest` struct (capitalised field names), RSA keys only, with `PublicKey`
 * replaced by `{N, E}` as Kyverno does.
 */
import type { JsonObject, JsonValue } from "../../../api/json.js";
import type { FunctionDef } from "../../types.js";
import {
  asn1Time,
  Asn1Error,
  bitString,
  children,
  expect,
  integer,
  isContext,
  isUniversal,
  oidArcs,
  oidString,
  parseElement,
  TAG,
  type Element,
} from "./asn1.js";
import { stringArg } from "./args.js";
import { base64Encode } from "./base64.js";
import { goError } from "./errors.js";
import { decodePem } from "./pem.js";
import { extensionDefaults, processExtensions } from "./x509-extensions.js";
import { attributeValue, parseName } from "./x509-names.js";

const SIGNATURE_ALGORITHMS: Record<string, number> = {
  "1.2.840.113549.1.1.2": 1,
  "1.2.840.113549.1.1.4": 2,
  "1.2.840.113549.1.1.5": 3,
  "1.3.14.3.2.29": 3,
  "1.2.840.113549.1.1.11": 4,
  "1.2.840.113549.1.1.12": 5,
  "1.2.840.113549.1.1.13": 6,
  "1.2.840.10040.4.3": 7,
  "2.16.840.1.101.3.4.3.2": 8,
  "1.2.840.10045.4.1": 9,
  "1.2.840.10045.4.3.2": 10,
  "1.2.840.10045.4.3.3": 11,
  "1.2.840.10045.4.3.4": 12,
  "1.3.101.112": 16,
};
const PSS_HASHES: Record<string, number> = {
  "2.16.840.1.101.3.4.2.1": 13,
  "2.16.840.1.101.3.4.2.2": 14,
  "2.16.840.1.101.3.4.2.3": 15,
};
const PUBLIC_KEY_ALGORITHMS: Record<string, number> = {
  "1.2.840.113549.1.1.1": 1,
  "1.2.840.10040.4.1": 2,
  "1.2.840.10045.2.1": 3,
  "1.3.101.112": 4,
};
const RSA = 1;

/** Go's `SignatureAlgorithm` number for an AlgorithmIdentifier (RSA-PSS resolved by its hash). */
function signatureAlgorithm(ai: Element): number {
  const [id, params] = children(ai);
  if (!id) return 0;
  const oid = oidString(oidArcs(id));
  if (oid !== "1.2.840.113549.1.1.10") return SIGNATURE_ALGORITHMS[oid] ?? 0;
  const hashAi = params ? children(params).find((c) => isContext(c, 0)) : undefined;
  const hashId = hashAi ? children(children(hashAi)[0] ?? hashAi)[0] : undefined;
  return hashId ? (PSS_HASHES[oidString(oidArcs(hashId))] ?? 0) : 0;
}

interface PublicKeyInfo {
  algorithm: number;
  key: JsonObject | undefined;
}

/** The SPKI algorithm, and for RSA the PKCS#1 key as `{N, E}` (undefined if malformed). */
function publicKeyInfo(spki: Element): PublicKeyInfo {
  const [ai, bits] = children(expect(spki, TAG.SEQUENCE, "subject public key info"));
  const id = ai ? children(ai)[0] : undefined;
  const algorithm = id ? (PUBLIC_KEY_ALGORITHMS[oidString(oidArcs(id))] ?? 0) : 0;
  if (algorithm !== RSA || !isUniversal(bits, TAG.BIT_STRING)) return { algorithm, key: undefined };
  try {
    const [n, e] = children(parseElement(bitString(bits).bytes));
    if (!isUniversal(n, TAG.INTEGER) || !isUniversal(e, TAG.INTEGER)) return { algorithm, key: undefined };
    const modulus = integer(n);
    const exponent = integer(e);
    if (modulus <= 0n || exponent <= 0n || exponent > 2147483647n) return { algorithm, key: undefined };
    return { algorithm, key: { N: modulus.toString(), E: Number(exponent) } };
  } catch {
    return { algorithm, key: undefined };
  }
}

function rsaKey(info: PublicKeyInfo): JsonObject {
  if (info.algorithm !== RSA) throw goError("certificate should use rsa algorithm");
  if (info.key === undefined) throw goError("failed to parse subject public key info");
  return info.key;
}

function parseCertificate(der: Uint8Array): JsonObject {
  const cert = expect(parseElement(der), TAG.SEQUENCE, "certificate");
  const [tbs, sigAi, sig] = children(cert);
  if (!tbs || !sigAi || !isUniversal(sig, TAG.BIT_STRING)) throw new Asn1Error("malformed certificate");
  const parts = children(expect(tbs, TAG.SEQUENCE, "tbs certificate"));
  let i = 0;
  let version = 0;
  if (isContext(parts[0], 0)) {
    version = Number(integer(expect(children(parts[0])[0], TAG.INTEGER, "version")));
    i++;
  }
  if (version < 0 || version > 2) throw goError("x509: invalid version");
  const serialEl = expect(parts[i++], TAG.INTEGER, "serial number");
  const innerSigAi = expect(parts[i++], TAG.SEQUENCE, "signature algorithm");
  const issuer = expect(parts[i++], TAG.SEQUENCE, "issuer");
  const [notBefore, notAfter] = children(expect(parts[i++], TAG.SEQUENCE, "validity"));
  const subject = expect(parts[i++], TAG.SEQUENCE, "subject");
  const spki = expect(parts[i++], TAG.SEQUENCE, "subject public key info");
  if (!notBefore || !notAfter) throw new Asn1Error("malformed validity");
  if (base64Encode(innerSigAi.full) !== base64Encode(sigAi.full)) {
    throw goError("x509: inner and outer signature algorithm identifiers don't match");
  }
  const serial = integer(serialEl);
  if (serial < 0n) throw goError("x509: negative serial number");
  const info = publicKeyInfo(spki);
  const key = rsaKey(info);

  const fields = extensionDefaults();
  let extensions: JsonValue = null;
  const extWrapper = parts.slice(i).find((p) => isContext(p, 3));
  if (extWrapper) {
    if (version !== 2) throw goError("x509: malformed extensions");
    extensions = processExtensions(expect(children(extWrapper)[0], TAG.SEQUENCE, "extensions"), fields);
  }
  return {
    Raw: base64Encode(cert.full),
    RawTBSCertificate: base64Encode(tbs.full),
    RawSubjectPublicKeyInfo: base64Encode(spki.full),
    RawSubject: base64Encode(subject.full),
    RawIssuer: base64Encode(issuer.full),
    Signature: base64Encode(bitString(sig).bytes),
    SignatureAlgorithm: signatureAlgorithm(sigAi),
    PublicKeyAlgorithm: info.algorithm,
    PublicKey: key,
    Version: version + 1,
    SerialNumber: Number(serial),
    Issuer: parseName(issuer),
    Subject: parseName(subject),
    NotBefore: asn1Time(notBefore),
    NotAfter: asn1Time(notAfter),
    ...fields,
    Extensions: extensions,
    ExtraExtensions: null,
  };
}

/** CSR attributes as `[]pkix.AttributeTypeAndValueSET`; attributes of another shape are skipped. */
function csrAttributes(attrs: Element[]): JsonValue[] {
  const out: JsonValue[] = [];
  for (const attr of attrs) {
    try {
      const [type, set] = children(attr);
      if (!isUniversal(type, TAG.OID) || !isUniversal(set, TAG.SET)) continue;
      const value = children(set).map((seq) =>
        children(expect(seq, TAG.SEQUENCE, "attribute")).map((atv) => {
          const [t, v] = children(expect(atv, TAG.SEQUENCE, "attribute"));
          if (!isUniversal(t, TAG.OID) || v === undefined) throw new Asn1Error("attribute");
          const decoded = isUniversal(v, TAG.OCTET_STRING) ? base64Encode(v.body) : attributeValue(v);
          return { Type: oidArcs(t), Value: decoded };
        }),
      );
      out.push({ Type: oidArcs(type), Value: value });
    } catch (e) {
      if (!(e instanceof Asn1Error)) throw e;
    }
  }
  return out;
}

function parseCertificateRequest(der: Uint8Array): JsonObject {
  const csr = expect(parseElement(der), TAG.SEQUENCE, "certificate request");
  const [info, sigAi, sig] = children(csr);
  if (!info || !sigAi || !isUniversal(sig, TAG.BIT_STRING)) throw new Asn1Error("malformed certificate request");
  const [versionEl, subject, spki, attrWrapper] = children(expect(info, TAG.SEQUENCE, "certificate request info"));
  const version = Number(integer(expect(versionEl, TAG.INTEGER, "version")));
  if (!subject || !spki) throw new Asn1Error("malformed certificate request");
  const keyInfo = publicKeyInfo(spki);
  const key = rsaKey(keyInfo);
  const attrs = isContext(attrWrapper, 0) ? children(attrWrapper) : [];
  const fields = extensionDefaults();
  let extensions: JsonValue = null;
  for (const attr of attrs) {
    const [type, set] = children(attr);
    if (!type || oidString(oidArcs(type)) !== "1.2.840.113549.1.9.14" || !set) continue;
    const exts = children(set)[0];
    if (exts) extensions = [...(extensions ?? []), ...processExtensions(exts, fields)];
  }
  return {
    Raw: base64Encode(csr.full),
    RawTBSCertificateRequest: base64Encode(info.full),
    RawSubjectPublicKeyInfo: base64Encode(spki.full),
    RawSubject: base64Encode(subject.full),
    Version: version,
    Signature: base64Encode(bitString(sig).bytes),
    SignatureAlgorithm: signatureAlgorithm(sigAi),
    PublicKeyAlgorithm: keyInfo.algorithm,
    PublicKey: key,
    Subject: parseName(subject),
    Attributes: csrAttributes(attrs),
    Extensions: extensions,
    ExtraExtensions: null,
    DNSNames: fields["DNSNames"] ?? null,
    EmailAddresses: fields["EmailAddresses"] ?? null,
    IPAddresses: fields["IPAddresses"] ?? null,
    URIs: fields["URIs"] ?? null,
  };
}

/** Decodes the first PEM block of `pem` as Kyverno's `x509_decode` does. */
export function x509Decode(pem: string): JsonObject {
  const block = decodePem(pem);
  if (block === undefined) throw goError("failed to decode PEM block");
  try {
    if (block.type === "CERTIFICATE") return parseCertificate(block.bytes);
    if (block.type === "CERTIFICATE REQUEST") return parseCertificateRequest(block.bytes);
  } catch (e) {
    if (e instanceof Asn1Error) {
      throw goError(
        block.type === "CERTIFICATE" ? "x509: malformed certificate" : `asn1: structure error: ${e.message}`,
      );
    }
    throw e;
  }
  throw goError("PEM block neither contains a CERTIFICATE or CERTIFICATE REQUEST");
}

export const x509Functions: readonly FunctionDef[] = [
  {
    name: "x509_decode",
    args: [{ types: ["string"] }],
    returns: "object",
    description:
      "decodes an x.509 certificate to an object. you may also use this in conjunction with `base64_decode` jmespath function to decode a base64-encoded certificate",
    call: (args) => x509Decode(stringArg("x509_decode", args, 0)),
  },
];
