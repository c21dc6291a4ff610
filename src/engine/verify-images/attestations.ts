/**
 * A verifyImages entry's `attestations` (Kyverno `imageVerifier.verifyAttestations`): for each
 * attestation (its `type`, or the deprecated `predicateType`; neither: ".attestations[i]: missing
 * type"), each attestor set needs `count` entries (all when unset) whose key verifies attestations
 * of the image (cosign-attestation.ts) among which one of that type exists ("attestions not found
 * for predicate type <type>", Kyverno's spelling) and every one of that type meets the
 * `conditions`, evaluated over the statement's `predicate` merged into the rule's context (so
 * `{{ builder.id }}` reads `predicate.builder.id`; the attestation's `name` holds the first
 * predicate fetched, as Kyverno's context entry): "attestation checks failed for <image> and
 * predicate <type>: <message>". A set that falls short fails with "image attestations
 * verification failed, verifiedCount: N, requiredCount: M, error: <each entry's error, joined by
 * '; '>", an error instead when an entry could not be checked by Bylaw (keyless, no attestors,
 * nested sets, registry access). Entry paths name the attestation's index where Kyverno names the
 * entry's, as Kyverno's messages do.
 */
import { isObject, type JsonObject, type JsonValue } from "../api/json.js";
import type { Result } from "../api/result.js";
import type { ConditionEvaluation } from "../conditions/index.js";
import { attestorKey, unsupported, type AttestorRun, type EntryOutcome } from "./attestors.js";
import { fetchAttestations } from "./cosign-attestation.js";

/**
 * Evaluates an attestation's `conditions` (any/all blocks as written) with `predicate` merged into
 * the rule's context, and `named` (the attestation's `name` and the first predicate fetched) set in it.
 */
export type AttestationConditions = (
  conditions: JsonValue,
  predicate: JsonObject,
  named?: { readonly name: string; readonly value: JsonObject },
) => Result<ConditionEvaluation>;

interface AttestationRun extends AttestorRun {
  /** The image's digest when known (from the reference or its verified signatures), for messages. */
  readonly digest: string;
  readonly conditions: AttestationConditions | undefined;
}

type Failure = Extract<EntryOutcome, { ok: false }>;

export function verifyAttestations(run: AttestationRun): EntryOutcome {
  // Kyverno learns no digest from attestations (cosign-attestation.ts): only the reference's or the signatures'.
  const digest = run.digest;
  for (const [i, raw] of run.entry.attestations.entries()) {
    const a = isObject(raw) ? raw : {};
    const path = `.attestations[${i}]`;
    const type = text(a["type"]) || text(a["predicateType"]);
    if (type === "") return { ok: false, hard: false, message: `${path}: missing type` };
    const sets = Array.isArray(a["attestors"]) ? a["attestors"].filter(isObject) : [];
    if (sets.length === 0)
      return unsupported(
        `${path}.attestors`,
        "attestations with no attestors are verified keylessly, with Fulcio certificates and the Rekor transparency log online, which Bylaw does not reach",
      );
    for (const [j, set] of sets.entries()) {
      const entries = Array.isArray(set["entries"]) ? set["entries"].filter(isObject) : [];
      const required = typeof set["count"] === "number" && set["count"] > 0 ? set["count"] : entries.length;
      const errors: string[] = [];
      let hard = false;
      let verified = 0;
      for (const e of entries) {
        const checked = verifyEntry(run, {
          attestor: a,
          type,
          entry: e,
          at: `${path}.attestors[${j}].entries[${i}]`,
          digest,
        });
        if (checked.ok) {
          if (++verified >= required) break;
        } else {
          errors.push(checked.message);
          hard ||= checked.hard;
        }
      }
      if (verified < required) {
        const message = `image attestations verification failed, verifiedCount: ${verified}, requiredCount: ${required}, error: ${errors.length > 0 ? errors.join("; ") : "attestations verification failed"}`;
        return { ok: false, hard, message };
      }
    }
  }
  return { ok: true, digest };
}

/** One entry of an attestor set, checked against one attestation type of the image `digest`. */
interface AttestorEntry {
  readonly attestor: JsonObject;
  readonly type: string;
  readonly entry: JsonObject;
  /** The entry's path, for messages. */
  readonly at: string;
  readonly digest: string;
}

function verifyEntry(run: AttestationRun, which: AttestorEntry): EntryOutcome {
  const { attestor: a, type, entry: e, at, digest } = which;
  if (e["attestor"] !== undefined && e["attestor"] !== null)
    return unsupported(`${at}.attestor`, "nested attestor sets are not verified for attestations by Bylaw");
  const key = attestorKey(run, e, at);
  if ("ok" in key) return key;
  const fetched = fetchAttestations({ image: run.image, ...key, credentials: run.entry.credentials, ports: run.ports });
  if (!fetched.ok) return fetched;
  // Kyverno's getRawResp: the first predicate fetched, whatever its type, becomes the context entry `name`.
  const first = fetched.statements.map((s) => s["predicate"]).find(isObject);
  if (first === undefined) return { ok: false, hard: false, message: "predicate not found in any statement" };
  const named = text(a["name"]) !== "" ? { name: text(a["name"]), value: first } : undefined;
  const image = withDigest(run.image, digest);
  const statements = fetched.statements.filter((s) => s["predicateType"] === type);
  if (statements.length === 0) return fail(key.path, `attestions not found for predicate type ${type}`);
  for (const s of statements) {
    const held = checkConditions(run, a["conditions"], s, named);
    if (typeof held === "string") return fail(key.path, held);
    if (!held.ok) return held;
    if (!held.value.met)
      return fail(key.path, `attestation checks failed for ${image} and predicate ${type}: ${held.value.message}`);
  }
  return { ok: true, digest };
}

/** The conditions' outcome, a failure Kyverno reports ("failed to check attestations: …"), or a hard outcome. */
function checkConditions(
  run: AttestationRun,
  conditions: JsonValue | undefined,
  s: JsonObject,
  named: Parameters<AttestationConditions>[2],
): string | Failure | { ok: true; value: ConditionEvaluation } {
  if (!Array.isArray(conditions) || conditions.length === 0)
    return { ok: true, value: { met: true, messages: [], message: "" } };
  const predicate = s["predicate"];
  if (!isObject(predicate))
    return `failed to check attestations: failed to extract predicate from statement: ${JSON.stringify(s)}`;
  if (run.conditions === undefined)
    return {
      ok: false,
      hard: true,
      message: "attestation conditions cannot be evaluated here (no rule context was given)",
    };
  const held = run.conditions(conditions, predicate, named);
  if (held.ok) return held;
  // Kyverno substitutes the conditions whole before evaluating them, and says so.
  const substitution = held.error.kind === "variable-substitution";
  const why = substitution
    ? `failed to substitute variables in attestation conditions: ${held.error.message.replace(/^failed to substitute variables in condition (key|value): /, "")}`
    : held.error.message;
  return `failed to check attestations: ${why}`;
}

function fail(path: string, why: string): Failure {
  return { ok: false, hard: false, message: `${path}: ${why}` };
}

/** Kyverno's `ImageInfo.String()` once the digest is known: `registry/path@digest`. */
export function withDigest(image: string, digest: string): string {
  if (digest === "" || image.includes("@")) return image;
  return image.replace(/:[^/:]+$/, "") + `@${digest}`;
}

function text(v: JsonValue | undefined): string {
  return typeof v === "string" ? v : "";
}
