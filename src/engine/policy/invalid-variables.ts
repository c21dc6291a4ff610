/**
 * Variables a kyverno.io rule may read (Kyverno `hasInvalidVariables` in
 * `pkg/validation/policy/validate.go`, run by its policy webhook and by its CLI before a policy is
 * applied): every `{{ … }}` in the rule (values and keys, after inner variables are resolved) must
 * read a built-in (an unanchored regular expression: `request`, `element`, `@`, `images`, a function
 * call, …; narrower in background mode and for mutate-existing rules) or one of the names the rule's
 * context entries define (its own and its foreach's, one level deep, as Kyverno's mock context
 * holds them). Otherwise the policy is invalid, with Kyverno's text: `policy contains invalid
 * variables: variable substitution failed for rule NAME: variable X must match regex "…" or
 * patterns […]`. The mutate targets' own check is target-variables.ts's and comes first, as in Kyverno.
 */
import { isObject, type JsonValue } from "../api/json.js";
import type { PolicyDocument, Rule } from "../api/policy.js";
import { problem, type PolicyProblem } from "../api/problem.js";
import { wildcardMatch } from "../values/wildcard.js";
import { scanVariables } from "../variables/scanner.js";
import { contextPatterns, IN_TARGET, IN_TARGET_BACKGROUND } from "./target-variables.js";

/** Kyverno's four allowed-variable expressions: admission only, background, and each for mutate targets. */
const ALLOWED = {
  admission:
    "request|serviceAccountName|serviceAccountNamespace|element|elementIndex|@|images|image|([a-z_0-9]+\\()[^{}]",
  background: "request\\.|element|elementIndex|@|images|images\\.|image\\.|([a-z_0-9]+\\()[^{}]",
  admissionTarget: IN_TARGET,
  backgroundTarget: IN_TARGET_BACKGROUND,
} as const;
const COMPILED = new Map<string, RegExp>(Object.values(ALLOWED).map((source) => [source, new RegExp(source)]));

export function invalidVariableProblems(policy: PolicyDocument, rule: Rule, path: string): PolicyProblem[] {
  const background = policy.spec.background !== false;
  const target = isObject(rule.mutate) && Array.isArray(rule.mutate["targets"]);
  const source = target
    ? background
      ? ALLOWED.backgroundTarget
      : ALLOWED.admissionTarget
    : background
      ? ALLOWED.background
      : ALLOWED.admission;
  const allowed = COMPILED.get(source) ?? new RegExp(source);
  const patterns = definedNames(rule);
  const isAllowed = (query: string): boolean => allowed.test(query) || patterns.some((p) => wildcardMatch(p, query));
  const invalid = firstInvalid(withoutAttestationConditions(rule) as unknown as JsonValue, "", isAllowed);
  if (invalid === undefined) return [];
  const why =
    invalid.query === ""
      ? `failed to resolve  at path ${invalid.at}: invalid query (nil)`
      : `variable ${invalid.query} must match regex "${source}" or patterns [${patterns.join(" ")}]`;
  return [
    problem(path, `policy contains invalid variables: variable substitution failed for rule ${rule.name}: ${why}`),
  ];
}

/** The names the mock context allows: context entries of the rule, of its foreach blocks and targets, attestations. */
function definedNames(rule: Rule): string[] {
  const entries = [...(rule.context ?? [])];
  const nested = (block: unknown, field: string): void => {
    const list = isObject(block) ? block[field] : undefined;
    if (!Array.isArray(list)) return;
    for (const item of list) {
      const context = isObject(item) ? item["context"] : undefined;
      if (Array.isArray(context)) entries.push(...(context as unknown as typeof entries));
    }
  };
  nested(rule.validate, "foreach");
  nested(rule.mutate, "foreach");
  nested(rule.mutate, "targets");
  nested(rule.generate, "foreach");
  const out = entries.flatMap((e) => (isObject(e as unknown as JsonValue) ? contextPatterns(e) : []));
  const images: unknown[] = Array.isArray(rule.verifyImages) ? rule.verifyImages : [];
  const validatesImages = images.some(
    (v) => isObject(v) && isObject(v["validate"]) && Object.keys(v["validate"]).length > 0,
  );
  if (validatesImages)
    for (const v of images) {
      const attestations = isObject(v) ? v["attestations"] : undefined;
      if (Array.isArray(attestations))
        for (const a of attestations) if (isObject(a) && typeof a["name"] === "string") out.push(`${a["name"]}*`);
    }
  return out;
}

/** Kyverno skips the variables of verifyImages attestations' conditions (they are evaluated per attestation). */
function withoutAttestationConditions(rule: Rule): Rule {
  if (!Array.isArray(rule.verifyImages)) return rule;
  const verifyImages = (rule.verifyImages as unknown[]).map((v) => {
    if (!isObject(v) || !Array.isArray(v["attestations"])) return v;
    const attestations = v["attestations"].map((a) => (isObject(a) ? { ...a, conditions: null } : a));
    return { ...v, attestations };
  });
  return { ...rule, verifyImages } as Rule;
}

interface Invalid {
  /** The query as Kyverno's mock context sees it ("" for an empty `{{ }}`). */
  readonly query: string;
  /** Where, as a JSON pointer into the rule (Kyverno names it for an empty query). */
  readonly at: string;
}

/** The first variable, in document order, that is not allowed; undefined when all are. */
function firstInvalid(
  value: JsonValue | undefined,
  at: string,
  isAllowed: (query: string) => boolean,
): Invalid | undefined {
  if (typeof value === "string") return invalidInString(value, at, isAllowed);
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = firstInvalid(item, `${at}/${i}`, isAllowed);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isObject(value)) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const found = invalidInString(key, at, isAllowed) ?? firstInvalid(item, `${at}/${key}`, isAllowed);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Kyverno's substitution loop over one string with a context that answers null: each variable is
 * checked and replaced by `null`, then the string is scanned again (a variable built from inner ones
 * is checked once they are replaced), unless the string was the variable alone or it was shallow.
 */
function invalidInString(text: string, at: string, isAllowed: (query: string) => boolean): Invalid | undefined {
  let value = text;
  let vars = scanVariables(value);
  while (vars.length > 0) {
    let shallow = false;
    for (const v of vars) {
      shallow = v.shallow;
      if (v.expression === "") return { query: "", at };
      const query = v.expression.replaceAll('"', "");
      if (v.expression !== "@" && !isAllowed(query)) return { query, at };
      if (value === v.text) return undefined;
      value = value.replace(v.text, "null");
    }
    vars = shallow ? [] : scanVariables(value);
  }
  return undefined;
}
