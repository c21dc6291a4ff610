/**
 * An ImageValidatingPolicy's attestors (`spec.attestors`), read once: the cosign key or certificate
 * each verifies with (Kyverno's `pkg/image/verifiers/ivpol/cosign`), and, for what Bylaw cannot
 * verify, the error naming the field: keyless (Fulcio and Rekor online), notary, KMS keys, keys or
 * certificates given by expression, TUF and trusted roots, and the transparency log checks Kyverno
 * makes by default (`ctlog.insecureIgnoreTlog`, and `ctlog.insecureIgnoreSCT` for a chain). Such an
 * attestor is an error where a verification function is called with it, never a silent count.
 */
import { isObject, type JsonObject, type JsonValue } from "../../api/json.js";
import type { CompiledAttestor } from "./body.js";

export function compileAttestors(v: JsonValue | undefined): CompiledAttestor[] {
  const list = Array.isArray(v) ? v.filter(isObject) : [];
  return list.map((a, i) => ({
    name: typeof a["name"] === "string" ? a["name"] : "",
    attestor: a,
    unsupported: attestorProblem(a, `spec.attestors[${i}]`),
  }));
}

export function attestorProblem(a: JsonObject, at: string): string | undefined {
  if (isObject(a["notary"]))
    return `${at}.notary: notary signatures are not verified by Bylaw (cosign keys and certificates are)`;
  const cosign = a["cosign"];
  if (!isObject(cosign)) return `${at}: the attestor names no cosign or notary verifier`;
  const c = `${at}.cosign`;
  if (isObject(cosign["keyless"]))
    return `${c}.keyless: keyless verification needs Fulcio certificates and the Rekor transparency log online, which Bylaw does not reach`;
  for (const field of ["tuf", "trustedRoot"])
    if (isObject(cosign[field])) return `${c}.${field}: not supported by Bylaw (give a key or certificate)`;
  if (isObject(cosign["source"]) && typeof cosign["source"]["tagPrefix"] === "string")
    return `${c}.source.tagPrefix: not supported by Bylaw`;
  const own = isObject(cosign["key"]) ? keyPart(cosign["key"], `${c}.key`) : certificatePart(cosign, c);
  return own ?? tlogPart(cosign, c);
}

function keyPart(key: JsonObject, at: string): string | undefined {
  if (typeof key["kms"] === "string" && key["kms"] !== "")
    return `${at}.kms: keys held in a KMS are not supported by Bylaw`;
  if (typeof key["data"] === "string" && key["data"].trim() !== "") return undefined;
  if (typeof key["expression"] === "string")
    return `${at}.expression: a key given by expression is not supported by Bylaw yet; give the PEM in data`;
  return `${at}: no data is given`;
}

function certificatePart(cosign: JsonObject, at: string): string | undefined {
  const certificate = cosign["certificate"];
  if (!isObject(certificate)) return `${at}: the attestor names no key, certificate or keyless`;
  for (const field of ["cert", "certChain"]) {
    const value = certificate[field];
    if (isObject(value) && typeof value["expression"] === "string" && typeof value["value"] !== "string")
      return `${at}.certificate.${field}.expression: a certificate given by expression is not supported by Bylaw yet; give it in value`;
  }
  const cert = certificate["cert"];
  if (!isObject(cert) || typeof cert["value"] !== "string" || cert["value"].trim() === "")
    return `${at}.certificate.cert: no certificate is given`;
  return undefined;
}

function tlogPart(cosign: JsonObject, at: string): string | undefined {
  const ctlog = isObject(cosign["ctlog"]) ? cosign["ctlog"] : {};
  if (ctlog["insecureIgnoreTlog"] !== true) {
    const url = typeof ctlog["url"] === "string" && ctlog["url"] !== "" ? ctlog["url"] : "https://rekor.sigstore.dev";
    return `${at}.ctlog: Bylaw does not check the Rekor transparency log (${url}), which Kyverno checks by default; set ctlog.insecureIgnoreTlog: true to verify with the key or certificate alone`;
  }
  const certificate = cosign["certificate"];
  const chain =
    isObject(certificate) && isObject(certificate["certChain"]) ? certificate["certChain"]["value"] : undefined;
  if (typeof chain === "string" && chain.trim() !== "" && ctlog["insecureIgnoreSCT"] !== true)
    return `${at}.ctlog: Bylaw does not check certificate transparency (the certificate's SCT), which Kyverno checks by default; set ctlog.insecureIgnoreSCT: true to verify the chain alone`;
  return undefined;
}
