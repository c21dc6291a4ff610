/**
 * Kyverno's validate.manifests handler (pkg/engine/handlers/validation/validate_manifest.go) over
 * k8s-manifest-sigstore's `VerifyResource`, for signatures carried in the object's annotations and
 * keys given inline: every attestor set must verify; in a set, `count` entries (all by default)
 * must verify. One entry verifies when the signed manifest matches the object (ignored fields aside)
 * and a signature over the message holds under the entry's key. Messages, word for word:
 * - "verified manifest signatures; …", "manifest verification succeeded|failed; verifiedCount N;
 *   requiredCount M; message …", "singed by a valid signer: " (Kyverno's spelling), "…: failed to verify
 *   signature. diff found; …", "failed to verify signature; <path>: …" (a nested set), "annotations
 *   mismatch: … does not match expected value … for key …": Kyverno `pkg/engine/handlers/validation/
 *   validate_manifest.go` (`verifyManifest`, `verifyManifestAttestorSet`, `k8sVerifyResource`,
 *   `checkManifestAnnotations`); errors of a set are joined by "; " (`multierr.Combine`);
 * - "message not found", "signature not found" (k8s-manifest-sigstore `pkg/k8smanifest/errors.go`,
 *   the default messages), "failed to decode base64 message in the annotation: …", "failed to read
 *   YAMLs in the gzipped message: …", "failed to find a YAML manifest in the gzipped message",
 *   "[publickey 1/1] [signature j/n] error: …" and "verification failed for n signature. all trials:
 *   [JSON list]": k8s-manifest-sigstore `pkg/k8smanifest/verifier.go` (`BlobManifestFetcher.Fetch`,
 *   `BlobSignatureVerifier.Verify`);
 * - the "YAML manifest not found for this resource: " and "failed to verify signature: " prefixes are
 *   `VerifyResource`'s, as Kyverno's documented report shows them; "error occurred during manifest
 *   verification: …" is the handler's error.
 * What Bylaw cannot check offline (a bundle or certificate that needs Rekor, a resourceBundleRef in
 * an OCI registry) is an error in Bylaw's own words.
 */
import { utf8Encode } from "../jmespath/functions/kyverno/go-text.js";
import { isObject, type JsonObject } from "../api/json.js";
import type { SignatureVerifier } from "../ports.js";
import { base64Decode } from "../jmespath/functions/kyverno/base64.js";
import { goJsonString } from "../go/json-encode.js";
import { diffDocuments, diffString, type Difference } from "./flat-diff.js";
import { findManifests } from "./find-manifest.js";
import { ignoredFieldsFor, withoutIgnored } from "./ignore-fields.js";
import { readSignedMessage, type SignedMessage } from "./signed-message.js";
import type { AttestorEntry, AttestorSet, CompiledManifests } from "./types.js";

interface ManifestOutcome {
  readonly status: "pass" | "fail" | "error";
  readonly message: string;
}

type SetOutcome = { readonly verified: boolean; readonly reason: string } | { readonly error: string };

/** What one verification reads once and every entry shares. */
interface Subject {
  readonly object: JsonObject;
  readonly annotations: Readonly<Record<string, string>>;
  readonly domain: string;
  readonly ignoreFields: readonly string[];
  readonly signatures: SignatureVerifier | undefined;
  message?: SignedMessage;
  match?: { readonly matched: boolean; readonly diff: readonly Difference[] } | undefined;
}

export function verifyManifests(
  m: CompiledManifests,
  object: JsonObject,
  signatures: SignatureVerifier | undefined,
): ManifestOutcome {
  const meta = isObject(object["metadata"]) ? object["metadata"] : {};
  const raw = isObject(meta["annotations"]) ? meta["annotations"] : {};
  const annotations: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (typeof v === "string") annotations[k] = v;
  const subject: Subject = {
    object,
    annotations,
    domain: m.domain,
    ignoreFields: ignoredFieldsFor(object, m.ignoreFields, m.domain),
    signatures,
  };
  const verified: string[] = [];
  for (const [i, set] of m.attestors.entries()) {
    const r = verifySet(subject, set, `.attestors[${i}]`);
    if ("error" in r) return { status: "error", message: `error occurred during manifest verification: ${r.error}` };
    if (!r.verified) return { status: "fail", message: r.reason };
    verified.push(r.reason);
  }
  return { status: "pass", message: `verified manifest signatures; ${verified.join(",")}` };
}

function verifySet(s: Subject, set: AttestorSet, path: string): SetOutcome {
  const required = set.count === undefined || set.count === 0 ? set.entries.length : set.count;
  let count = 0;
  const errors: string[] = [];
  const passed: string[] = [];
  const failed: string[] = [];
  for (const [i, entry] of set.entries.entries()) {
    let at = `${path}.entries[${i}]`;
    let r: SetOutcome;
    if (entry.kind === "nested") {
      at += ".attestor";
      const nested = verifySet(s, entry.set, at);
      r = "error" in nested ? { error: `failed to verify signature; ${at}: ${nested.error}` } : nested;
    } else {
      r = verifyEntry(s, entry, at);
    }
    if ("error" in r) errors.push(r.error);
    else if (r.verified) {
      count++;
      passed.push(r.reason);
    } else failed.push(r.reason);
    if (count >= required)
      return {
        verified: true,
        reason: `manifest verification succeeded; verifiedCount ${count}; requiredCount ${required}; message ${passed.join(",")}`,
      };
  }
  if (errors.length > 0) return { error: errors.join("; ") };
  return {
    verified: false,
    reason: `manifest verification failed; verifiedCount ${count}; requiredCount ${required}; message ${failed.join(",")}`,
  };
}

/** k8s-manifest-sigstore's VerifyResource for one entry: fetch the manifest, compare, then check signatures. */
function verifyEntry(s: Subject, entry: Exclude<AttestorEntry, { kind: "nested" }>, at: string): SetOutcome {
  if (entry.annotations !== undefined) {
    for (const [key, val] of Object.entries(entry.annotations)) {
      const actual = s.annotations[key] ?? "";
      if (actual !== val)
        return { error: `annotations mismatch: ${actual} does not match expected value ${val} for key ${key}` };
    }
  }
  const p = `${at}${entry.subPath}`;
  if (entry.kind === "offline" && entry.reason.includes(".repository")) return { error: `${p}: ${entry.reason}` };
  const bundleRef = s.annotations[`${s.domain}/resourceBundleRef`];
  if (bundleRef !== undefined)
    return {
      error: `${p}: the object's ${s.domain}/resourceBundleRef annotation (${bundleRef}) points to signed manifests in an OCI registry, which Bylaw does not fetch`,
    };
  s.message ??= readSignedMessage(s.annotations[`${s.domain}/message`]);
  const message = s.message;
  if (message.kind === "not-found")
    return { verified: false, reason: `${p}: YAML manifest not found for this resource: ${message.message}` };
  if (message.kind === "error") return { error: `${p}: YAML manifest not found for this resource: ${message.message}` };
  s.match ??= compare(s, message.manifests);
  if (s.match === undefined)
    return {
      verified: false,
      reason: `${p}: YAML manifest not found for this resource: failed to find a YAML manifest in the gzipped message`,
    };
  const sets = signatureSets(s);
  if (sets.length === 0) return { verified: false, reason: `${p}: failed to verify signature: signature not found` };
  if (entry.kind === "offline") return { error: `${p}: ${entry.reason}` };
  const sig = checkSignatures(s, entry.publicKey, sets, message.signed);
  if (sig !== undefined) return { error: `${p}: failed to verify signature: ${sig}` };
  if (s.match.matched) return { verified: true, reason: "singed by a valid signer: " };
  return { verified: false, reason: `${p}: failed to verify signature. diff found; ${diffString(s.match.diff)}` };
}

/** The first candidate's remaining differences, or a match; undefined when no manifest fits the object. */
function compare(s: Subject, manifests: readonly JsonObject[]): Subject["match"] {
  const candidates = findManifests(manifests, s.object, s.ignoreFields);
  if (candidates.length === 0) return undefined;
  let first: Difference[] | undefined;
  for (const c of candidates) {
    const diff = withoutIgnored(diffDocuments(c, s.object), s.ignoreFields);
    if (diff.length === 0) return { matched: true, diff: [] };
    first ??= diff;
  }
  return { matched: false, diff: first ?? [] };
}

interface SignatureSet {
  readonly signature: string;
  /** A certificate or bundle makes cosign check the Rekor transparency log. */
  readonly online: boolean;
}

/** `<domain>/signature`, `<domain>/signature_1`, … with their certificate and bundle annotations. */
function signatureSets(s: Subject): SignatureSet[] {
  const out: SignatureSet[] = [];
  const a = s.annotations;
  if (a[`${s.domain}/message`] === undefined) return out;
  const limit = Object.keys(a).length;
  for (let i = 0; i <= limit; i++) {
    const suffix = i === 0 ? "" : `_${i}`;
    const signature = a[`${s.domain}/signature${suffix}`];
    if (signature === undefined) break;
    out.push({
      signature,
      online: a[`${s.domain}/certificate${suffix}`] !== undefined || a[`${s.domain}/bundle${suffix}`] !== undefined,
    });
  }
  return out;
}

/** undefined when one signature holds under the key; otherwise the error k8s-manifest-sigstore reports. */
function checkSignatures(
  s: Subject,
  publicKey: string,
  sets: readonly SignatureSet[],
  signed: Uint8Array,
): string | undefined {
  if (s.signatures === undefined)
    return "this engine was built without a signature verifier (EnginePorts.signatures), so no signature can be checked";
  const trials: string[] = [];
  let online: number | undefined;
  for (const [j, set] of sets.entries()) {
    const name = `[publickey 1/1] [signature ${j + 1}/${sets.length}] error: `;
    if (set.online) {
      online ??= j + 1;
      continue;
    }
    const raw = base64Decode(utf8Encode(set.signature));
    if (typeof raw === "string") {
      trials.push(`${name}cosign.VerifyBlobCmd.Exec() returned an error: decoding signature: ${raw}`);
      continue;
    }
    const r = s.signatures.verify({ publicKey, data: signed, signature: raw, hash: "sha256" });
    if (!r.ok)
      trials.push(`${name}cosign.VerifyBlobCmd.Exec() returned an error: loading public key: ${r.error.message}`);
    else if (r.value) return undefined;
    else
      trials.push(
        `${name}cosign.VerifyBlobCmd.Exec() returned an error: invalid signature when validating ASN.1 encoded signature`,
      );
  }
  if (online !== undefined) {
    return `signature ${online}/${sets.length} carries a ${s.domain}/certificate or bundle annotation: cosign then checks it against the Rekor transparency log, which Bylaw does not reach offline`;
  }
  return `verification failed for ${sets.length} signature. all trials: [${trials.map((t) => goJsonString(t, "json-iterator")).join(",")}]`;
}
