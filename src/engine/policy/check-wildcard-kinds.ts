/**
 * Kyverno's admission check of a rule that matches or excludes kind `*` (`validateWildcard` in
 * `pkg/validation/policy/validate.go`, run on each kinds list of match and exclude, in the CLI too):
 * such a rule is not allowed in background mode, may name no other kind, may not generate, verify
 * images or validate with foreach, and may validate (pattern, anyPattern, a legacy deny list) or
 * mutate only the resource's metadata. Each problem is at the kinds list's path with Kyverno's text.
 */
import { isObject, type JsonValue } from "../api/json.js";
import type { Condition, MatchResources, PolicyDocument, Rule } from "../api/policy.js";
import { problem, type PolicyProblem } from "../api/problem.js";
import { parseJsonPatch } from "../mutate/json-patch/parse.js";

const METADATA_ONLY =
  "policy can only deal with the metadata field of the resource if the rule does not match any kind";
/** A variable the metadata-only rule also allows in a legacy deny key (Kyverno's wildCardAllowedVariables). */
const ALLOWED_KEY_VARIABLE = /\{\{\s*(request\.|serviceAccountName|serviceAccountNamespace)[^{}]*\}\}/;

/** The kinds lists of a block with their paths, as Kyverno names them in its error. */
function kindLists(block: MatchResources | undefined, path: string): [readonly string[], string][] {
  if (block == null) return [];
  const out: [readonly string[], string][] = [];
  for (const list of ["any", "all"] as const)
    (block[list] ?? []).forEach((f, i) => out.push([f?.resources?.kinds ?? [], `${path}.${list}[${i}].kinds`]));
  out.push([block.resources?.kinds ?? [], `${path}.kinds`]);
  return out;
}

export function wildcardKindProblems(policy: PolicyDocument, rule: Rule, path: string): PolicyProblem[] {
  const background = policy.spec.background !== false;
  const out: PolicyProblem[] = [];
  for (const [kinds, at] of [
    ...kindLists(rule.match, `${path}.match`),
    ...kindLists(rule.exclude, `${path}.exclude`),
  ]) {
    if (!kinds.includes("*")) continue;
    const reason = wildcardReason(kinds, rule, background);
    if (reason !== undefined) out.push(problem(at, reason));
  }
  return out;
}

function wildcardReason(kinds: readonly string[], rule: Rule, background: boolean): string | undefined {
  if (background)
    return "wildcard policy not allowed in background mode. Set spec.background=false to disable background mode for this policy rule";
  if (kinds.length > 1) return "wildcard policy can not deal with more than one kind";
  const v = rule.validate;
  if (rule.generate !== undefined || rule.verifyImages !== undefined || (v?.foreach?.length ?? 0) > 0)
    return "wildcard policy does not support rule type";
  if (v !== undefined) {
    if ((v.pattern !== undefined || v.anyPattern !== undefined) && !validateOnlyMetadata(v.pattern, v.anyPattern))
      return METADATA_ONLY;
    const deny = v.deny?.conditions;
    if (Array.isArray(deny) && !(deny as readonly Condition[]).every(metadataKey)) return METADATA_ONLY;
  }
  if (rule.mutate !== undefined && !mutateOnlyMetadata(rule.mutate)) return METADATA_ONLY;
  return undefined;
}

const onlyMetadataKeys = (v: JsonValue | undefined): boolean =>
  !isObject(v) || Object.keys(v).every((k) => k === "metadata");

function validateOnlyMetadata(pattern: JsonValue | undefined, anyPattern: readonly JsonValue[] | undefined): boolean {
  return onlyMetadataKeys(pattern) && (anyPattern ?? []).every(onlyMetadataKeys);
}

function metadataKey(c: Condition): boolean {
  const key = typeof c.key === "string" ? c.key : "";
  return (
    key.includes("request.object.metadata.") || (ALLOWED_KEY_VARIABLE.test(key) && !key.includes("request.object.spec"))
  );
}

function mutateOnlyMetadata(mutate: { readonly [k: string]: JsonValue }): boolean {
  if (!onlyMetadataKeys(mutate["patchStrategicMerge"])) return false;
  const text = mutate["patchesJson6902"];
  if (typeof text !== "string" || text === "") return true;
  const ops = parseJsonPatch(text);
  // An unreadable patch is reported by the mutate checks; here it is not metadata-only.
  return ops.ok && ops.value.every((op) => op.path.startsWith("/metadata"));
}
