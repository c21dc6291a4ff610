/**
 * An ImageValidatingPolicy (or Namespaced) at a version Bylaw runs compiles to its own body
 * (compile-body.ts), no rules. Another version is not run.
 */
import { isObject, textOf, type JsonObject } from "../../api/json.js";
import { problem } from "../../api/problem.js";
import { JsonPatchCache } from "../../mutate/json-patch-cache.js";
import { PatternCache } from "../../pattern/index.js";
import type { CompileEnv, KindCompileOutcome } from "../../policy/compile-policy.js";
import { ExpressionCache } from "../../variables/index.js";
import type { PolicyKindName } from "../types.js";
import { compileUnsupported } from "../unsupported/compile.js";
import { compileImageValidatingBody } from "./compile-body.js";
import { IMAGE_VALIDATING_POLICY_VERSIONS } from "./kinds.js";

export function compileImageValidatingKind(doc: JsonObject, kind: PolicyKindName, env: CompileEnv): KindCompileOutcome {
  if (!IMAGE_VALIDATING_POLICY_VERSIONS.has(textOf(doc["apiVersion"]))) return compileUnsupported(doc, kind, env);
  const metadata = isObject(doc["metadata"]) ? doc["metadata"] : {};
  const name = typeof metadata["name"] === "string" ? metadata["name"] : "";
  const namespaced = kind === "NamespacedImageValidatingPolicy";
  if (name === "") return { ok: false, problems: [problem("metadata.name", "metadata.name is required")] };
  if (!isObject(doc["spec"])) return { ok: false, problems: [problem("spec", `${kind} ${name}: spec is required`)] };
  const spec = doc["spec"];
  const compiled = compileImageValidatingBody(spec, `${kind} ${name}`, namespaced ? "namespaced" : "cluster");
  if (!compiled.ok) return compiled;
  const evaluation = isObject(spec["evaluation"]) ? spec["evaluation"] : {};
  const annotations = isObject(metadata["annotations"]) ? metadata["annotations"] : {};
  return {
    ok: true,
    policy: {
      language: "image-validating",
      document: doc,
      kind,
      name,
      namespace: namespaced ? textOf(metadata["namespace"] ?? "") || "default" : "",
      imageValidating: compiled.body,
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
