/**
 * One cosign public-key check (cosign's `VerifyImageSignatures` with a static key, as Kyverno's
 * `pkg/cosign` calls it): the image's signatures come from the registry port (form "signatures":
 * the layers of `<repository>:sha256-<hex>.sig`); a signature counts when it holds under the key
 * over the layer's exact bytes (the simple-signing payload), and the payload's
 * `critical.image.docker-manifest-digest` is the image's digest. Then, as Kyverno's cosign verifier
 * does after cosign (`pkg/image/verifiers/cpol/cosign` `VerifySignature`, `checkAnnotations`; Kyverno
 * hands cosign no annotations of its own), one verified payload's `optional` must carry every
 * required annotation. Messages, word for word:
 * - "no signatures found": sigstore/cosign `pkg/cosign/verify.go` `verifySignatures` (ErrNoSignaturesFound);
 * - "no matching signatures: <why each failed, joined by "\n ">": the same function (ErrNoMatchingSignatures);
 * - "invalid or missing digest in claim: <digest>": cosign `pkg/cosign/verifiers.go` `SimpleClaimVerifier`;
 * - "invalid signature when validating ASN.1 encoded signature": sigstore `pkg/signature/ecdsa.go`
 *   (the ECDSA verifier; RSA and ed25519 keys word it otherwise, see the report of this change);
 * - "illegal base64 data at input byte N": Go's `encoding/base64`, as cosign's `verifyOCISignature` returns it;
 * - "no signature matched the required annotations": Kyverno's `checkAnnotations`.
 */
import { isObject, type JsonObject, type JsonValue, textOf } from "../api/json.js";
import { base64Decode } from "../jmespath/functions/kyverno/base64.js";
import { utf8DecodeLossy, utf8Encode } from "../jmespath/functions/kyverno/go-text.js";
import type { ContextCaller, EnginePorts } from "../ports.js";
import type { EntryOutcome } from "./attestors.js";

export interface KeyCheck {
  readonly image: string;
  readonly key: string;
  readonly hash: "sha224" | "sha256" | "sha384" | "sha512";
  readonly repository: string;
  readonly annotations: Readonly<Record<string, JsonValue>> | undefined;
  readonly credentials: JsonObject | undefined;
  readonly ports: EnginePorts;
  /** Whose policy asks (a namespaced policy's pull secrets stay in its namespace); absent: a cluster-wide one. */
  readonly caller?: ContextCaller;
}

export function verifyWithKey(check: KeyCheck): EntryOutcome {
  const fetched = fetchLayers(check, "signatures");
  if (!fetched.ok) return fetched;
  const { digest, layers: signatures } = fetched;
  if (signatures.length === 0) return { ok: false, hard: false, message: "no signatures found" };
  const why: string[] = [];
  let verified = 0;
  for (const s of signatures) {
    const checked = checkOne(check, s, digest);
    if (typeof checked === "string") why.push(checked);
    else if ("ok" in checked) return checked;
    else if (carries(checked.claim, check.annotations)) return { ok: true, digest };
    else verified++;
  }
  if (verified > 0) return { ok: false, hard: false, message: NO_ANNOTATED_SIGNATURE };
  return { ok: false, hard: false, message: `no matching signatures: ${why.join("\n ")}` };
}

/** Kyverno's `checkAnnotations` when no verified payload carries every required annotation. */
export const NO_ANNOTATED_SIGNATURE = "no signature matched the required annotations";

/** Whether a verified payload's `optional` holds every required annotation (none required: true). */
function carries(claim: JsonValue, annotations: KeyCheck["annotations"]): boolean {
  if (annotations === undefined) return true;
  const optional = isObject(claim) && isObject(claim["optional"]) ? claim["optional"] : {};
  return Object.entries(annotations).every(([k, v]) => optional[k] === v);
}

/** The digest and the layers of the image's signature (or attestation) manifest, from the registry port. */
export function fetchLayers(
  check: KeyCheck,
  form: "signatures" | "attestations",
):
  | { readonly ok: true; readonly digest: string; readonly layers: readonly JsonObject[] }
  | Extract<EntryOutcome, { ok: false }> {
  if (check.ports.signatures === undefined)
    return {
      ok: false,
      hard: true,
      message: "this engine checks no signatures (no signature verifier was given to it)",
    };
  const fetched = check.ports.context.imageData(check.image, {
    form,
    ...(check.repository !== "" ? { repository: check.repository } : {}),
    ...(check.credentials !== undefined ? { credentials: check.credentials } : {}),
    ...(check.caller !== undefined ? { caller: check.caller } : {}),
  });
  if (!fetched.ok) return { ok: false, hard: true, message: fetched.error.message };
  const data = fetched.value;
  const digest = isObject(data) && typeof data["digest"] === "string" ? data["digest"] : "";
  if (digest === "") return { ok: false, hard: true, message: `the registry port gave no digest for ${check.image}` };
  return {
    ok: true,
    digest,
    layers: isObject(data) && Array.isArray(data["signatures"]) ? data["signatures"].filter(isObject) : [],
  };
}

/** The signed claim when the signature holds and names the digest; why it does not; or a hard outcome (the key cannot be read). */
function checkOne(
  check: KeyCheck,
  s: JsonObject,
  digest: string,
): string | Extract<EntryOutcome, { ok: false }> | { readonly claim: JsonValue } {
  const payload = base64Decode(utf8Encode(textOf(s["payload"] ?? "")));
  const encoded = textOf(s["signature"] ?? "");
  if (encoded === "") return "the signature annotation (dev.cosignproject.cosign/signature) is missing";
  // cosign's verifyOCISignature returns Go's base64 error as it is.
  const signature = base64Decode(utf8Encode(encoded));
  if (typeof signature === "string") return signature;
  if (typeof payload === "string") return `the signed payload is not base64: ${payload}`;
  const verified = check.ports.signatures?.verify({ publicKey: check.key, data: payload, signature, hash: check.hash });
  if (verified === undefined || !verified.ok)
    return { ok: false, hard: true, message: verified?.error.message ?? "no signature verifier" };
  if (!verified.value) return "invalid signature when validating ASN.1 encoded signature";
  let claim: JsonValue;
  try {
    claim = JSON.parse(utf8DecodeLossy(payload)) as JsonValue;
  } catch {
    return "the signed payload is not JSON";
  }
  const critical = isObject(claim) ? claim["critical"] : undefined;
  const image = isObject(critical) ? critical["image"] : undefined;
  const claimed = isObject(image) ? image["docker-manifest-digest"] : undefined;
  if (claimed !== digest) return `invalid or missing digest in claim: ${typeof claimed === "string" ? claimed : ""}`;
  return { claim };
}
