/**
 * One image against one verifyImages entry (Kyverno `ImageVerifier.verifyImage`): nothing when the
 * entry checks no signature; a skip when the entry does not list the image, or skips it
 * (`skipImageReferences`); an error naming the field when the entry uses what Bylaw cannot run;
 * otherwise the attestors' verdict: "verified image signatures for <image>", or "failed to verify
 * image <image>: <why>" (fail; error when Bylaw could not check); then, when the entry lists
 * attestations, theirs (attestations.ts): "verified image attestations for <image>" (the image
 * named by digest when the reference or the signatures gave one), or the failure itself.
 * The texts are Kyverno's `pkg/engine/internal/imageverifier.go`: "skipping image reference image
 * …, policy … ruleName …" (`verifyImage`), "verified image signatures for …" (`verifyAttestors`),
 * "failed to verify image …: …" (`handleRegistryErrors`), "invalid response: nil" (`verifyAttestors`,
 * when the sets gave no response), "verified image attestations for …"
 * (`verifyAttestations`); the error naming a field Bylaw does not run is Bylaw's own.
 */
import type { RuleStatus } from "../api/rule-result.js";
import type { EnginePorts } from "../ports.js";
import { verifyAttestations, withDigest, type AttestationConditions } from "./attestations.js";
import { INVALID_RESPONSE, verifyAttestors } from "./attestors.js";
import { verifiesSignatures, type ImageVerification } from "./image-verification.js";
import { imageMatches } from "./matched-images.js";

interface ImageVerdict {
  readonly status: RuleStatus;
  readonly message: string;
  /** The digest the signatures were checked against, when they held. */
  readonly digest?: string;
}

export interface VerifyTarget {
  readonly image: string;
  readonly policy: string;
  readonly rule: string;
  readonly ports: EnginePorts;
  /** The image's digest when its reference names one ("" otherwise). */
  readonly digest?: string;
  /** How attestation conditions are evaluated (the rule's context); absent: conditions are an error. */
  readonly conditions?: AttestationConditions;
}

export function verifyImage(entry: ImageVerification, target: VerifyTarget): ImageVerdict | undefined {
  if (!verifiesSignatures(entry)) return undefined;
  const { image } = target;
  const skipped = `skipping image reference image ${image}, policy ${target.policy} ruleName ${target.rule}`;
  if (!imageMatches(image, entry.imageReferences)) return { status: "skip", message: skipped };
  if (imageMatches(image, entry.skipImageReferences)) return { status: "skip", message: skipped };
  if (entry.unsupported !== undefined)
    return { status: "error", message: `failed to verify image ${image}: ${entry.unsupported}` };
  let digest = target.digest ?? "";
  if (entry.attestors.length > 0) {
    const outcome = verifyAttestors({ image, entry, ports: target.ports });
    if (!outcome.ok && outcome.message === INVALID_RESPONSE) return { status: "error", message: INVALID_RESPONSE };
    if (!outcome.ok)
      return {
        status: outcome.hard ? "error" : "fail",
        message: `failed to verify image ${image}: ${outcome.message}`,
      };
    if (entry.attestations.length === 0)
      return { status: "pass", message: `verified image signatures for ${image}`, digest: outcome.digest };
    digest ||= outcome.digest;
  }
  const attested = verifyAttestations({ image, entry, ports: target.ports, digest, conditions: target.conditions });
  if (!attested.ok) return { status: attested.hard ? "error" : "fail", message: attested.message };
  return {
    status: "pass",
    message: `verified image attestations for ${withDigest(image, attested.digest)}`,
    ...(attested.digest !== "" ? { digest: attested.digest } : {}),
  };
}

/** What a verdict writes in the `kyverno.io/verify-images` annotation (Kyverno `ruleStatusToImageVerificationStatus`). */
export function annotationStatus(status: RuleStatus): "pass" | "skip" | "fail" {
  return status === "pass" ? "pass" : status === "skip" || status === "warn" ? "skip" : "fail";
}
