/**
 * A MutatingPolicy (or Namespaced) at a version Bylaw runs compiles to its own body: the compiled
 * programs of its spec and autogen copies (cel/mutating-policy/), no rules. Another version is not run.
 */
import { isObject, textOf, type JsonObject } from "../../api/json.js";
import { problem } from "../../api/problem.js";
import { compileMutatingBodies } from "../../cel/mutating-policy/compile.js";
import { JsonPatchCache } from "../../mutate/json-patch-cache.js";
import { PatternCache } from "../../pattern/index.js";
import type { CompileEnv, KindCompileOutcome } from "../../policy/compile-policy.js";
import { ExpressionCache } from "../../variables/index.js";
import type { PolicyKindName } from "../types.js";
import { compileUnsupported } from "../unsupported/compile.js";
import { MUTATING_POLICY_VERSIONS } from "./kinds.js";

export function compileMutatingKind(doc: JsonObject, kind: PolicyKindName, env: CompileEnv): KindCompileOutcome {
  if (!MUTATING_POLICY_VERSIONS.has(textOf(doc["apiVersion"]))) return compileUnsupported(doc, kind, env);
  const metadata = isObject(doc["metadata"]) ? doc["metadata"] : {};
  const name = str(metadata["name"]);
  const namespaced = kind === "NamespacedMutatingPolicy";
  if (name === "") return { ok: false, problems: [problem("metadata.name", "metadata.name is required")] };
  if (!isObject(doc["spec"])) return { ok: false, problems: [problem("spec", `${kind} ${name}: spec is required`)] };
  const spec = doc["spec"];
  const compiled = compileMutatingBodies(spec, name, namespaced ? "namespaced" : "cluster");
  if (!compiled.ok) return compiled;
  const evaluation = isObject(spec["evaluation"]) ? spec["evaluation"] : {};
  const annotations = isObject(metadata["annotations"]) ? metadata["annotations"] : {};
  return {
    ok: true,
    policy: {
      language: "mutating",
      document: doc,
      kind,
      name,
      namespace: namespaced ? str(metadata["namespace"]) || "default" : "",
      mutating: compiled.bodies,
      background: isObject(evaluation["background"]) ? evaluation["background"]["enabled"] !== false : true,
      scored: annotations["policies.kyverno.io/scored"] !== "false",
      warnings: [],
      usesImages: false,
      cache: new ExpressionCache(env.jmespath),
      patterns: new PatternCache(),
      jsonPatches: new JsonPatchCache(),
    },
  };
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}
