/**
 * One cosign public-key check (cosign's `VerifyImageSignatures` with a static key, as Kyverno's
 * `pkg/cosign` calls it): the image's signatures come from the registry port (form "signatures":
 * the layers of `<repository>:sha256-<hex>.sig`); a signature counts when it holds under the key
 * over the layer's exact bytes (the simple-signing payload), and the payload's
 * `critical.image.docker-manifest-digest` is the image's digest, and the payload's `optional`
 * carries every required annotation. Messages are cosign's: "no signatures found", "no matching
 * signatures: <why each failed>", "invalid or missing digest in claim: …", "missing or incorrect annotation".
 */
import { isObject, type JsonObject, type JsonValue } from "../api/json.js";
import { base64Decode } from "../jmespath/functions/kyverno/base64.js";
import { utf8DecodeLossy, utf8Encode } from "../jmespath/functions/kyverno/go-text.js";
import type { EnginePorts } from "../ports.js";
import type { EntryOutcome } from "./attestors.js";

export interface KeyCheck {
  readonly image: string;
  readonly key: string;
  readonly hash: "sha224" | "sha256" | "sha384" | "sha512";
  readonly repository: string;
  readonly annotations: Readonly<Record<string, JsonValue>> | undefined;
  readonly credentials: JsonObject | undefined;
  readonly ports: EnginePorts;
}

export function verifyWithKey(check: KeyCheck): EntryOutcome {
  const fetched = fetchLayers(check, "signatures");
  if (!fetched.ok) return fetched;
  const { digest, layers: signatures } = fetched;
  if (signatures.length === 0) return { ok: false, hard: false, message: "no signatures found" };
  const why: string[] = [];
  for (const s of signatures) {
    const problem = checkOne(check, s, digest);
    if (problem === undefined) return { ok: true, digest };
    if (typeof problem !== "string") return problem;
    why.push(problem);
  }
  return { ok: false, hard: false, message: `no matching signatures: ${why.join("\n ")}` };
}

/** The digest and the layers of the image's signature (or attestation) manifest, from the registry port. */
export function fetchLayers(check: KeyCheck, form: "signatures" | "attestations"): { readonly ok: true; readonly digest: string; readonly layers: readonly JsonObject[] } | Extract<EntryOutcome, { ok: false }> {
  if (check.ports.signatures === undefined) return { ok: false, hard: true, message: "this engine checks no signatures (no signature verifier was given to it)" };
  const fetched = check.ports.context.imageData(check.image, {
    form,
    ...(check.repository !== "" ? { repository: check.repository } : {}),
    ...(check.credentials !== undefined ? { credentials: check.credentials } : {}),
  });
  if (!fetched.ok) return { ok: false, hard: true, message: fetched.error.message };
  const data = fetched.value;
  const digest = isObject(data) && typeof data["digest"] === "string" ? data["digest"] : "";
  if (digest === "") return { ok: false, hard: true, message: `the registry port gave no digest for ${check.image}` };
  return { ok: true, digest, layers: isObject(data) && Array.isArray(data["signatures"]) ? data["signatures"].filter(isObject) : [] };
}

/** undefined when the signature holds; why it does not; or a hard outcome (the key cannot be read). */
function checkOne(check: KeyCheck, s: JsonObject, digest: string): string | EntryOutcome | undefined {
  const payload = base64Decode(utf8Encode(String(s["payload"] ?? "")));
  const signature = base64Decode(utf8Encode(String(s["signature"] ?? "")));
  if (typeof payload === "string") return `the signed payload is not base64: ${payload}`;
  if (typeof signature === "string" || signature.length === 0) return "the signature annotation (dev.cosignproject.cosign/signature) is missing or not base64";
  const verified = check.ports.signatures?.verify({ publicKey: check.key, data: payload, signature, hash: check.hash });
  if (verified === undefined || !verified.ok) return { ok: false, hard: true, message: verified?.error.message ?? "no signature verifier" };
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
  if (check.annotations !== undefined) {
    const optional = isObject(claim) && isObject(claim["optional"]) ? claim["optional"] : {};
    for (const [k, v] of Object.entries(check.annotations)) if (optional[k] !== v) return "missing or incorrect annotation";
  }
  return undefined;
}
