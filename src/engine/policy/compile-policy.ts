/**
 * parse → check → autogen → pre-compile every `{{ }}` expression. Evaluation never re-parses:
 * expressions live in the policy's ExpressionCache.
 */
import type { JsonValue } from "../api/json.js";
import type { PolicyDocument, Rule } from "../api/policy.js";
import { computeRules, isAutogenRuleName } from "../autogen/index.js";
import { compilePodSecurity, type CompiledPodSecurity } from "../pod-security/index.js";
import { compileManifests, type CompiledManifestsRule } from "../manifests/index.js";
import { validatePass } from "../validate/messages.js";
import { fastPassOf } from "../validate/fast-pass.js";
import { staticAction } from "./static-action.js";
import type { MatcherCache } from "../match/shared-match.js";
import { PatternCache } from "../pattern/index.js";
import type { JmesPathEngine } from "../jmespath/types.js";
import { JsonPatchCache } from "../mutate/json-patch-cache.js";
import { ExpressionCache, prepareSubstitution } from "../variables/index.js";
import { checkPolicy } from "./check-policy.js";
import type { CompiledPolicy, CompiledRule, UnsourcedPolicy } from "./compiled-policy.js";
import { parsePolicy } from "./parse-policy.js";

import { namespaceLabelsField } from "../match/namespace-labels.js";
import { unsupportedFeatures } from "./unsupported.js";
import { problem, type PolicyProblem } from "../api/problem.js";
import { createCel, type CelEngine } from "../cel/index.js";
import { compileCelRule, usesCel, type CompiledCelRule } from "../cel/validate-rule/index.js";
import { sharedCel } from "../cel/shared-cel.js";
import { compileWebhookMatchConditions } from "./webhook-match-conditions.js";

export type CompileOutcome = { ok: true; policy: CompiledPolicy } | { ok: false; problems: PolicyProblem[] };

/** A kind's compile, before the registry adds what it was compiled from (`CompiledPolicy.origin`). */
export type KindCompileOutcome = { ok: true; policy: UnsourcedPolicy } | { ok: false; problems: PolicyProblem[] };

/** What one engine compiles with: its interpreter, and its cache of matchers shared by rules written alike. */
export interface CompileEnv {
  readonly jmespath: JmesPathEngine;
  readonly matchers: MatcherCache;
  /** The engine's CEL environment, asked for only when a rule uses CEL (default: a new one). */
  readonly cel?: () => CelEngine;
  /** The environment of the policies.kyverno.io kinds: Kubernetes' plus Kyverno's libraries (default: a new one). */
  readonly celPolicies?: (namespaced: boolean) => CelEngine;
  /** An HTTP- or Envoy-mode ValidatingPolicy's environment: kyverno-authz's (default: the shared one). */
  readonly celAuthz?: (mode: "HTTP" | "Envoy") => CelEngine;
  /** Kubernetes' admission matchConditions environment (default: the shared one). */
  readonly celMatchConditions?: () => CelEngine;
}

/** What a policy is compiled with beside its own document. */
export interface CompileOptions {
  /**
   * ValidatingAdmissionPolicyBinding documents loaded with the policy: a ValidatingAdmissionPolicy
   * applies through those whose `spec.policyName` names it (the others are ignored here).
   */
  readonly bindings?: readonly JsonValue[];
}

/** Compile one kyverno.io ClusterPolicy/Policy document (kinds/kyverno/); the kind registry dispatches to it. */
export function compileKyvernoPolicy(doc: JsonValue, env: CompileEnv): KindCompileOutcome {
  const parsed = parsePolicy(doc);
  if (!parsed.policy) return { ok: false, problems: parsed.problems };
  const policy = parsed.policy;
  const problems = checkPolicy(policy);
  const matchConditions = compileWebhookMatchConditions(
    policy.spec.webhookConfiguration,
    env.celMatchConditions ?? (() => sharedCel("match-conditions")),
    problems,
  );
  const cache = new ExpressionCache(env.jmespath);
  const patterns = new PatternCache();
  const originals = new Set((policy.spec.rules ?? []).map((r) => r));
  let celEngine: CelEngine | undefined;
  const rules: CompiledRule[] = computeRules(policy).map((rule, i) => {
    const autogenOf =
      originals.has(rule) || !isAutogenRuleName(rule.name) ? undefined : rule.name.replace(/^autogen-(cronjob-)?/, "");
    const ps = rule.validate?.podSecurity;
    let podSecurity: CompiledPodSecurity | undefined;
    if (ps !== undefined) {
      const compiled = compilePodSecurity(
        ps,
        autogenOf === undefined
          ? `spec.rules[${i}].validate.podSecurity`
          : `(autogen rule ${rule.name}).validate.podSecurity`,
      );
      // Autogen copies repeat the original's problems: report them once, on the original.
      if (!compiled.ok) {
        if (autogenOf === undefined) problems.push(...compiled.problems);
      } else {
        if (autogenOf === undefined) problems.push(...compiled.warnings);
        podSecurity = compiled.value;
      }
    }
    const manifests = manifestsOf(
      rule.validate?.manifests,
      autogenOf === undefined
        ? `spec.rules[${i}].validate.manifests`
        : `(autogen rule ${rule.name}).validate.manifests`,
      autogenOf === undefined ? problems : [],
    );
    const pass = rule.validate === undefined ? undefined : validatePass(rule.name);
    let unsupported = unsupportedFeatures(rule);
    let celRule: CompiledCelRule | undefined;
    if (unsupported === undefined && usesCel(rule)) {
      celEngine ??= env.cel?.() ?? createCel();
      const compiledCel = compileCelRule(rule, policy.metadata.name, celEngine);
      if (compiledCel.ok) celRule = compiledCel.value;
      else unsupported = compiledCel.message;
    }
    // Every rule has the same fields, in the same order: one object shape for the hot loops.
    return {
      rule,
      name: rule.name,
      matcher: env.matchers.get(rule),
      autogenOf,
      action: staticAction(policy, rule),
      podSecurity,
      manifests,
      validatePass: pass,
      fastPass:
        unsupported === undefined && celRule === undefined ? fastPassOf(rule, pass?.result, patterns) : undefined,
      shareKey: unsupported === undefined && celRule === undefined ? shareKeyOf(policy, rule) : undefined,
      unsupported,
      cel: celRule,
      namespaceLabels: namespaceLabelsField(policy, rule),
    };
  });
  rules.forEach((r, i) => {
    const prepared = prepareSubstitution(r.rule as unknown as JsonValue, cache);
    if (!prepared.ok) {
      const path = r.autogenOf === undefined ? `spec.rules[${i}]` : `(autogen rule ${r.name})`;
      problems.push(problem(path, prepared.error.message));
    }
  });
  const errors = problems.filter((p) => p.severity === "error");
  if (errors.length > 0) return { ok: false, problems };
  const annotations = policy.metadata.annotations ?? {};
  const severity = annotations["policies.kyverno.io/severity"];
  const category = annotations["policies.kyverno.io/category"];
  const compiled: UnsourcedPolicy = {
    language: "kyverno",
    document: policy,
    kind: policy.kind,
    name: policy.metadata.name,
    namespace: policy.kind === "Policy" ? (policy.metadata.namespace ?? "default") : "",
    rules,
    background: policy.spec.background !== false,
    applyRules: policy.spec.applyRules === "One" ? "One" : "All",
    scored: annotations["policies.kyverno.io/scored"] !== "false",
    ...(severity !== undefined ? { severity } : {}),
    ...(category !== undefined ? { category } : {}),
    warnings: problems,
    ...(matchConditions !== undefined ? { matchConditions } : {}),
    usesImages: rules.some((r) => JSON.stringify(r.rule).includes("images")),
    cache,
    patterns,
    jsonPatches: new JsonPatchCache(),
  };
  return { ok: true, policy: compiled };
}

/** validate.manifests read at load; with `{{ }}` variables, kept to read after substitution. Problems go to `problems`. */
function manifestsOf(
  raw: JsonValue | undefined,
  path: string,
  problems: PolicyProblem[],
): CompiledManifestsRule | undefined {
  if (raw === undefined) return undefined;
  if (JSON.stringify(raw).includes("{{")) return { template: raw, path };
  const compiled = compileManifests(raw, path);
  if (!compiled.ok) {
    problems.push(...compiled.problems);
    return undefined;
  }
  return { compiled: compiled.value };
}

/** CompiledRule `shareKey`: set only for a validate rule that reads nothing but the request and its own text. */
function shareKeyOf(policy: PolicyDocument, rule: Rule): string | undefined {
  const v = rule.validate;
  if (v === undefined || rule.verifyImages !== undefined) return undefined;
  if (v.podSecurity !== undefined || v.cel !== undefined || v.manifests !== undefined) return undefined;
  if (v.pattern === undefined && v.anyPattern === undefined && v.deny === undefined && v.foreach === undefined)
    return undefined;
  if (Array.isArray(rule.context) && rule.context.length > 0) return undefined;
  return JSON.stringify([policy.metadata.namespace ?? "", policy.spec.validationFailureAction ?? null, rule]);
}
