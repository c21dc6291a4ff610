/**
 * The chain check of a certificate attestor (`SignatureVerifier.verifyChain`; cosign's
 * `ValidateAndUnpackCertWithChain` over Go's x509 verification), with node:crypto's X509Certificate:
 * the leaf chains through CA intermediates to the chain's last certificate, each signature holding
 * and each certificate valid at the leaf's notBefore; the leaf allows code signing; the leaf is
 * valid now. Reasons are Go's x509 wording, which Kyverno's messages carry.
 */
import { createRequire } from "node:module";
import { err, ok, type CertificateCheck, type Result } from "../engine/index.js";

type X509 = import("node:crypto").X509Certificate;
const CODE_SIGNING = "1.3.6.1.5.5.7.3.3";
const MAX_DEPTH = 10;

export function verifyCertificateChain(check: CertificateCheck): Result<string | undefined> {
  const { X509Certificate } = createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");
  let leaf: X509;
  let chain: X509[];
  try {
    leaf = new X509Certificate(check.certificate);
    chain = splitCertificates(check.chain).map((pem) => new X509Certificate(pem));
  } catch (e) {
    return err("signature-key", `a certificate cannot be read: ${(e as Error).message}`);
  }
  const root = chain[chain.length - 1];
  if (root === undefined) return err("signature-key", "the certificate chain holds no certificate");
  const intermediates = chain.slice(0, -1);
  const at = Date.parse(leaf.validFrom);
  const issued = (child: X509, parent: X509): boolean => child.checkIssued(parent) && child.verify(parent.publicKey);
  let current = leaf;
  for (let depth = 0; ; depth++) {
    if (!validAt(current, at)) return ok("x509: certificate has expired or is not yet valid");
    if (issued(current, root)) {
      if (!validAt(root, at)) return ok("x509: certificate has expired or is not yet valid");
      break;
    }
    const next = intermediates.find((i) => i.ca && issued(current, i));
    if (next === undefined || depth >= MAX_DEPTH) return ok("x509: certificate signed by unknown authority");
    current = next;
  }
  const usages = leaf.keyUsage;
  if (usages !== undefined && usages.length > 0 && !usages.includes(CODE_SIGNING))
    return ok("x509: certificate specifies an incompatible key usage");
  if (!validAt(leaf, check.nowMillis))
    return ok(
      `x509: certificate has expired or is not yet valid: the certificate is valid from ${leaf.validFrom} to ${leaf.validTo}`,
    );
  return ok(undefined);
}

function validAt(cert: X509, millis: number): boolean {
  return Date.parse(cert.validFrom) <= millis && millis <= Date.parse(cert.validTo);
}

function splitCertificates(pem: string): string[] {
  return pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
}
