/**
 * A verifyImages rule's entries for one request: variables substituted in everything but the
 * attestations' conditions (Kyverno's `substituteVariables` in mutate_image.go leaves those for
 * each statement, and which keep the policy's own objects here), then read (image-verification.ts).
 * A substitution error is the rule's error.
 */
import type { JsonValue } from "../api/json.js";
import { isObject } from "../api/json.js";
import type { Rule } from "../api/policy.js";
import type { Result } from "../api/result.js";
import { err, ok } from "../api/result.js";
import { substituteAll, type SubstitutionScope } from "../variables/index.js";
import { readVerification, type ImageVerification } from "./image-verification.js";

export function imageRuleEntries(rule: Rule, vars: SubstitutionScope): Result<ImageVerification[]> {
  const raw = (rule.verifyImages ?? []).map((e) =>
    isObject(e) && Array.isArray(e["attestations"])
      ? { ...e, attestations: e["attestations"].map(withoutConditions) }
      : e,
  );
  const substituted = substituteAll(raw, vars);
  if (!substituted.ok) return err("substitution", `failed to substitute variables: ${substituted.error.message}`);
  const list = Array.isArray(substituted.value) ? substituted.value : [];
  return ok(list.map((e, i) => readVerification(withRawConditions(e, rule.verifyImages?.[i]), i)));
}

/** The entry with each attestation's `conditions` as the policy wrote them (the same objects, so compiled forms are cached by them). */
function withRawConditions(entry: JsonValue, raw: JsonValue | undefined): JsonValue {
  if (
    !isObject(entry) ||
    !Array.isArray(entry["attestations"]) ||
    !isObject(raw) ||
    !Array.isArray(raw["attestations"])
  )
    return entry;
  const written = raw["attestations"];
  const attestations = entry["attestations"].map((a, j) => {
    const w = written[j];
    return isObject(a) && isObject(w) && w["conditions"] !== undefined ? { ...a, conditions: w["conditions"] } : a;
  });
  return { ...entry, attestations };
}

function withoutConditions(a: JsonValue): JsonValue {
  if (!isObject(a)) return a;
  const rest: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(a)) if (k !== "conditions") rest[k] = v;
  return rest;
}
