/**
 * A pattern's failure as an explanation shows it: the resource's value at the failing path and what
 * the pattern asks for there; an anyPattern's patterns tried one by one.
 */
import type { JsonValue } from "../api/json.js";
import { isObject } from "../api/json.js";
import type { Resource } from "../api/resource.js";
import { removeAnchor } from "../anchors/index.js";
import { compilePattern, type PatternCache } from "../pattern/index.js";
import { substituteAll, type SubstitutionScope } from "../variables/index.js";
import { preview } from "./preview.js";
import type { FailedAt, RuleExplanation } from "./types.js";

/** The value at a pattern failure's path (`/spec/containers/0/image/`) in the resource (or foreach element) matched. */
function valueAt(target: JsonValue, path: string): JsonValue | undefined {
  let at: JsonValue | undefined = target;
  for (const segment of path.split("/").filter((s) => s !== "")) {
    if (Array.isArray(at)) at = /^\d+$/.test(segment) ? at[Number(segment)] : undefined;
    else at = isObject(at) ? at[segment] : undefined;
    if (at === undefined) return undefined;
  }
  return at;
}

export function failedAt(subject: JsonValue, pattern: JsonValue | undefined, path: string): FailedAt {
  const wanted = patternAt(pattern, path);
  return {
    path,
    value: preview(valueAt(subject, path)),
    ...(wanted !== undefined ? { expected: preview(wanted) } : {}),
  };
}

/**
 * Each pattern of an anyPattern against the resource, in order, up to the first that passes. A
 * pattern that holds no variable is the policy's compiled one (`cache`), as validate-pattern.ts uses.
 */
export function explainAnyPattern(
  patterns: readonly JsonValue[],
  subject: Resource,
  scope: SubstitutionScope,
  cache: PatternCache,
): NonNullable<RuleExplanation["anyPattern"]> {
  const out: NonNullable<RuleExplanation["anyPattern"]>[number][] = [];
  for (const [i, pattern] of patterns.entries()) {
    const at = `anyPattern[${i}]`;
    const substituted = substituteAll(pattern, scope);
    if (!substituted.ok) {
      out.push({ at, status: "error", message: substituted.error.message });
      return out;
    }
    const compiled = substituted.value === pattern ? cache.get(pattern) : compilePattern(substituted.value);
    const outcome = compiled.match(subject);
    if (outcome.status === "pass") {
      out.push({ at, status: "pass" });
      return out;
    }
    out.push({
      at,
      status: outcome.status,
      message: outcome.message,
      ...(outcome.status === "fail" ? { failedAt: failedAt(subject, substituted.value, outcome.path) } : {}),
    });
  }
  return out;
}

/**
 * What validate.pattern asks for at a failure's path: object keys are found with or without their
 * anchor (`=(securityContext)`), and a list's first pattern element stands for every element.
 */
function patternAt(pattern: JsonValue | undefined, path: string): JsonValue | undefined {
  let at: JsonValue | undefined = pattern;
  for (const segment of path.split("/").filter((s) => s !== "")) {
    if (Array.isArray(at)) at = at[0];
    else if (isObject(at)) {
      const object = at;
      const key = Object.keys(object).find((k) => k === segment || removeAnchor(k).key === segment);
      at = key === undefined ? undefined : object[key];
    } else return undefined;
    if (at === undefined) return undefined;
  }
  return at;
}
