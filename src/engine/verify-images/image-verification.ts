/**
 * One `verifyImages` entry as Kyverno reads it (`api/kyverno/v1/image_verification_types.go`),
 * after variable substitution: the deprecated single-attestor shortcuts converted (`image`,
 * `key`; Kyverno's `Convert`), the CRD defaults applied (mutateDigest, verifyDigest and required
 * default to true), and the fields Bylaw cannot run named, so that an image they concern gets an
 * `error` result saying which field, never a pass.
 */
import { isObject, type JsonObject, type JsonValue } from "../api/json.js";

export interface ImageVerification {
  /** `verifyImages[<index>]`, for messages. */
  readonly index: number;
  readonly imageReferences: readonly string[];
  readonly skipImageReferences: readonly string[];
  readonly attestors: readonly JsonObject[];
  readonly attestations: readonly JsonValue[];
  /** Alternate signature repository for every attestor (an attestor's own `repository` wins). */
  readonly repository: string;
  /** Annotations every signature's payload must carry (an attestor's own `annotations` win). */
  readonly annotations: Readonly<Record<string, JsonValue>> | undefined;
  readonly mutateDigest: boolean;
  readonly verifyDigest: boolean;
  readonly required: boolean;
  readonly credentials: JsonObject | undefined;
  /** Set when the entry uses a field Bylaw does not run: the error an image it verifies gets. */
  readonly unsupported: string | undefined;
}

export function readVerification(entry: JsonValue, index: number): ImageVerification {
  const e = isObject(entry) ? entry : {};
  const path = `verifyImages[${index}]`;
  const references = strings(e["imageReferences"]);
  const image = typeof e["image"] === "string" && e["image"] !== "" ? e["image"] : undefined;
  const attestors = Array.isArray(e["attestors"]) ? e["attestors"].filter(isObject) : [];
  const key = typeof e["key"] === "string" && e["key"] !== "" ? e["key"] : undefined;
  const unsupported: string[] = [];
  if (key !== undefined && attestors.length === 0)
    attestors.push({
      entries: [{ keys: { publicKeys: key, ...(isObject(e["rekor"]) ? { rekor: e["rekor"] } : {}) } }],
    });
  if (key === undefined && ["issuer", "subject", "roots"].some((k) => typeof e[k] === "string" && e[k] !== "")) {
    unsupported.push(
      `${path}.issuer/subject/roots (keyless verification with Fulcio certificates and the Rekor transparency log needs online Sigstore services)`,
    );
  }
  const type = typeof e["type"] === "string" && e["type"] !== "" ? e["type"] : "Cosign";
  if (type !== "Cosign") unsupported.push(`${path}.type ${type} (only Cosign signatures are verified)`);
  if (e["cosignOCI11"] === true) unsupported.push(`${path}.cosignOCI11 (signatures as OCI 1.1 referrers)`);
  const attestations = Array.isArray(e["attestations"]) ? e["attestations"] : [];
  if (isObject(e["validate"])) unsupported.push(`${path}.validate (deny checks on the verification result)`);
  return {
    index,
    imageReferences: references.length === 0 && image !== undefined ? [image] : references,
    skipImageReferences: strings(e["skipImageReferences"]),
    attestors,
    attestations,
    repository: typeof e["repository"] === "string" ? e["repository"] : "",
    annotations: isObject(e["annotations"]) ? e["annotations"] : undefined,
    mutateDigest: e["mutateDigest"] !== false,
    verifyDigest: e["verifyDigest"] !== false,
    required: e["required"] !== false,
    credentials: isObject(e["imageRegistryCredentials"]) ? e["imageRegistryCredentials"] : undefined,
    unsupported:
      unsupported.length === 0
        ? undefined
        : `${unsupported.join(", ")} ${unsupported.length === 1 ? "is" : "are"} not supported by Bylaw yet; the image was not verified`,
  };
}

/** Whether the entry checks signatures or attestations (Kyverno records only those in the annotation). */
export function verifiesSignatures(v: ImageVerification): boolean {
  return v.attestors.length > 0 || v.attestations.length > 0;
}

function strings(v: JsonValue | undefined): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}
