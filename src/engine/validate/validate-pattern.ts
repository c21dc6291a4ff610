/** validate.pattern and validate.anyPattern: resolve $() references and `{{ }}` variables, then match. */
import type { JsonValue } from "../api/json.js";
import { anyPatternDetails, compilePattern, type CompiledPattern, type PatternOutcome } from "../pattern/index.js";
import { substituteAll } from "../variables/index.js";
import { anyPatternPassMessage, passOutcome, patternFailMessage, substitutionFailed } from "./messages.js";
import { resolveMessage } from "./resolve-message.js";
import type { ValidateOutcome, ValidateScope } from "./types.js";

type Prepared = { ok: true; value: JsonValue } | { ok: false; outcome: ValidateOutcome };

function preparePattern(pattern: JsonValue, scope: ValidateScope): Prepared {
  const subbed = substituteAll(pattern, scope.vars);
  if (!subbed.ok) return { ok: false, outcome: { status: "error", message: substitutionFailed(subbed.error.message) } };
  return subbed;
}

/**
 * The policy's own pattern compiles once, in the policy's cache. A pattern that substitution
 * rewrote is new for this request: it is compiled for it alone, not kept (a cache keyed by
 * per-request objects would hold them through V8's young-generation collections).
 */
function compiledFor(pattern: JsonValue, prepared: JsonValue, scope: ValidateScope): CompiledPattern {
  return prepared === pattern ? scope.patterns.get(pattern) : compilePattern(prepared);
}

/** undefined: the target is being deleted, and the substituted pattern is not matched against it. */
export function validatePattern(
  pattern: JsonValue,
  message: string | undefined,
  scope: ValidateScope,
): ValidateOutcome | undefined {
  const prepared = preparePattern(pattern, scope);
  if (!prepared.ok) return prepared.outcome;
  if (scope.deleting === true) return undefined;
  const outcome = compiledFor(pattern, prepared.value, scope).match(scope.target);
  switch (outcome.status) {
    case "pass":
      return passOutcome(scope);
    case "skip":
      return { status: "skip", message: outcome.message };
    case "error":
      return { status: "error", message: outcome.message };
    case "fail": {
      // Kyverno: a message that cannot be substituted still fails the rule at its path, and the
      // text carries the mismatch ("variables substitution error in rule … execution error: …").
      const msg = resolveMessage(message, scope, outcome.message);
      if (!msg.ok) return { status: "fail", message: msg.message, path: outcome.path };
      return {
        status: "fail",
        message: patternFailMessage(scope.ruleName, msg.text, outcome.path),
        path: outcome.path,
      };
    }
  }
}

/** undefined: the target is being deleted, and the substituted patterns are not matched against it. */
export function validateAnyPattern(
  patterns: readonly JsonValue[],
  message: string | undefined,
  scope: ValidateScope,
): ValidateOutcome | undefined {
  const outcomes: { index: number; outcome: Exclude<PatternOutcome, { status: "pass" }> }[] = [];
  let failed = false;
  const prepared: JsonValue[] = [];
  // Every pattern is substituted before any is matched, as Kyverno substitutes the whole anyPattern.
  for (const pattern of patterns) {
    const one = preparePattern(pattern, scope);
    if (!one.ok) return one.outcome;
    prepared.push(one.value);
  }
  if (scope.deleting === true) return undefined;
  for (let i = 0; i < patterns.length; i++) {
    const pattern = patterns[i] ?? null;
    const outcome = compiledFor(pattern, prepared[i] ?? null, scope).match(scope.target);
    if (outcome.status === "pass") return { status: "pass", message: anyPatternPassMessage(scope.ruleName, i) };
    if (outcome.status !== "skip") failed = true;
    outcomes.push({ index: i, outcome });
  }
  const status = failed ? "fail" : "skip";
  const details = anyPatternDetails(scope.ruleName, { status, outcomes }).join(" ");
  if (status === "skip") return { status: "skip", message: details };
  const msg = resolveMessage(message, scope);
  if (!msg.ok) return { status: "error", message: msg.message };
  const text = msg.text === "" ? "" : msg.text.endsWith(".") ? `${msg.text} ` : `${msg.text}. `;
  return { status: "fail", message: `validation error: ${text}${details}` };
}
