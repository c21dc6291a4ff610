/**
 * Kyverno's CEL `x509.decode(string)` (kyverno/sdk libs/x509): the first PEM block, an RSA
 * CERTIFICATE or CERTIFICATE REQUEST, decoded as Go marshals it. A certificate gives the fields of
 * the SDK's CertificateOutput (Go's x509.Certificate without Subject, Version, SignatureAlgorithm
 * and a few more); a request gives all of x509.CertificateRequest. Numbers are doubles (Go's JSON
 * round trip into `any`). The decoding is the engine's `x509_decode` (JMESPath), shared.
 */
import type { JsonObject, JsonValue } from "../../api/json.js";
import { x509Decode } from "../../jmespath/functions/kyverno/x509.js";
import { CelFunctionError, namespace, type CelLibrary } from "../library.js";
import { goAny } from "./value-libs.js";

const CERTIFICATE_OUTPUT = [
  "Raw",
  "RawTBSCertificate",
  "RawSubjectPublicKeyInfo",
  "RawSubject",
  "RawIssuer",
  "Signature",
  "PublicKeyAlgorithm",
  "PublicKey",
  "SerialNumber",
  "Issuer",
  "NotBefore",
  "NotAfter",
  "KeyUsage",
  "Extensions",
  "ExtraExtensions",
  "ExtKeyUsage",
  "BasicConstraintsValid",
  "IsCA",
  "MaxPathLen",
  "MaxPathLenZero",
  "AuthorityKeyId",
  "OCSPServer",
  "IssuingCertificateURL",
  "DNSNames",
  "EmailAddresses",
  "IPAddresses",
  "PermittedDNSDomainsCritical",
  "PermittedDNSDomains",
  "ExcludedDNSDomains",
  "PermittedIPRanges",
  "ExcludedIPRanges",
  "PermittedEmailAddresses",
  "ExcludedEmailAddresses",
  "PermittedURIDomains",
  "ExcludedURIDomains",
  "CRLDistributionPoints",
  "PolicyIdentifiers",
];

function decode(pem: string): unknown {
  let decoded: JsonObject;
  try {
    decoded = x509Decode(pem);
  } catch (e) {
    throw new CelFunctionError(e instanceof Error ? e.message : String(e));
  }
  if (!("RawTBSCertificate" in decoded)) return goAny(decoded);
  const out: JsonObject = {};
  for (const k of CERTIFICATE_OUTPUT) out[k] = decoded[k] ?? (null as JsonValue);
  return goAny(out);
}

export function x509Library(): CelLibrary {
  const NS = "kyverno.X509Namespace";
  return {
    name: "kyverno.x509",
    ...namespace("x509", NS),
    functions: [{ signature: `${NS}.decode(string): dyn`, handler: (_: unknown, pem: string) => decode(pem) }],
  };
}
