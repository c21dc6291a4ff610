/**
 * `engine.compile`: what the document is (registry.ts `classify`), then its kind family's compile,
 * and what it was compiled from recorded on the result (`CompiledPolicy.origin`).
 */
import { isObject, type JsonObject, type JsonValue } from "../api/json.js";
import { exceedsDepth, isStackOverflow, MAX_DOCUMENT_DEPTH } from "../api/json-depth.js";
import { problem } from "../api/problem.js";
import type { CompileEnv, CompileOptions, CompileOutcome, KindCompileOutcome } from "../policy/compile-policy.js";
import { compileAdmissionPolicyKind, compileBindingDocument } from "./admission-policy/compile.js";
import { VALIDATING_ADMISSION_POLICY } from "./admission-policy/kinds.js";
import { compileGeneratingKind } from "./generating/compile.js";
import { compileKyvernoKind } from "./kyverno/compile.js";
import { documentHeadOf } from "./head.js";
import { classify, kindDescriptor } from "./registry.js";
import type { Classification, PolicyKindDescriptor } from "./types.js";
import { compileUnsupported } from "./unsupported/compile.js";
import { compileValidatingKind } from "./validating/compile.js";
import { compileDeletingKind } from "./deleting/compile.js";
import { compileMutatingKind } from "./mutating/compile.js";
import { compileMutatingAdmissionKind } from "./mutating-admission-policy/compile.js";
import { compileImageValidatingKind } from "./image-validating/compile.js";

export function compileDocument(doc: JsonValue, env: CompileEnv, options: CompileOptions = {}): CompileOutcome {
  if (exceedsDepth(doc, MAX_DOCUMENT_DEPTH)) {
    return { ok: false, problems: [problem("", `the policy is nested deeper than ${MAX_DOCUMENT_DEPTH} levels`)] };
  }
  try {
    return compileClassified(doc, env, options);
  } catch (e) {
    if (isStackOverflow(e))
      return { ok: false, problems: [problem("", "the policy is too deeply nested or self-referencing to compile")] };
    throw e;
  }
}

function compileClassified(doc: JsonValue, env: CompileEnv, options: CompileOptions): CompileOutcome {
  const c = classify(doc);
  if (c.role !== "policy" || !isObject(doc)) return notAPolicy(doc, c, env);
  const bindings = c.kind.boundBy === undefined ? [] : (options.bindings ?? []).filter(isObject);
  const outcome = compileByKind(doc, c.kind, env, bindings);
  if (!outcome.ok) return outcome;
  const apiVersion = typeof doc["apiVersion"] === "string" ? doc["apiVersion"] : "";
  const origin = { kind: c.kind, apiVersion, document: doc, bindings };
  return { ok: true, policy: { ...outcome.policy, ...documentHeadOf(doc, c.kind, outcome.policy), origin } };
}

function compileByKind(
  doc: JsonObject,
  kind: PolicyKindDescriptor,
  env: CompileEnv,
  bindings: readonly JsonObject[],
): KindCompileOutcome {
  switch (kind.language) {
    case "kyverno":
      return compileKyvernoKind(doc, env);
    case "cel":
      return kind.boundBy !== undefined
        ? compileAdmissionPolicyKind(doc, env, bindings)
        : compileValidatingKind(doc, kind.kind, env);
    case "generating":
      return compileGeneratingKind(doc, kind.kind);
    case "mutating":
      return kind.boundBy !== undefined
        ? compileMutatingAdmissionKind(doc, bindings)
        : compileMutatingKind(doc, kind.kind);
    case "unsupported":
      return compileUnsupported(doc, kind.kind);
    case "deleting":
      return compileDeletingKind(doc, kind.kind, env);
    case "image-validating":
      return compileImageValidatingKind(doc, kind.kind);
  }
}

/** An exception, a binding, or what is no policy at all: a problem saying what to do with it instead. */
function notAPolicy(doc: JsonValue, c: Classification, env: CompileEnv): CompileOutcome {
  switch (c.role) {
    case "exception": {
      const group = c.language === "cel" ? "policies.kyverno.io" : "kyverno.io";
      const text = `a ${group} PolicyException is not a policy: load it as an exception (bylaw apply -e, a test's exceptions)`;
      return { ok: false, problems: [problem("kind", text)] };
    }
    case "binding": {
      const outcome = compileBindingDocument(doc, c.of);
      if (!outcome.ok || !isObject(doc)) return outcome as CompileOutcome;
      const kind = kindDescriptor(c.of) ?? VALIDATING_ADMISSION_POLICY;
      const origin = {
        kind,
        apiVersion: typeof doc["apiVersion"] === "string" ? doc["apiVersion"] : "",
        document: doc,
        bindings: [],
      };
      return { ok: true, policy: { ...outcome.policy, ...documentHeadOf(doc, kind, outcome.policy), origin } };
    }
    case "policy":
    case "not-a-policy": {
      // The kyverno.io parse names what is wrong (apiVersion, kind, mapping) as it always has.
      const parsed = compileKyvernoKind(doc, env);
      return parsed.ok ? { ok: false, problems: [problem("kind", "not a policy")] } : parsed;
    }
  }
}
