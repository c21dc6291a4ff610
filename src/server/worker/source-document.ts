/**
 * The document a worker compiles a served policy from. A ValidatingPolicy's compiled document is
 * the engine's kyverno.io-shaped stand-in, which does not compile again: its own document is
 * rebuilt from the spec it was compiled from (policy-source/cel-policy-compile.ts). Every other
 * policy's compiled document is its own. A policy a worker still cannot compile makes only the
 * jobs that run it evaluation errors (evaluation-worker.ts), never a pass.
 */
import type { CompiledPolicy, JsonValue } from "../../engine/index.js";
import { celSpecOf } from "../policy-source/cel-policy-compile.js";

export function sourceDocument(policy: CompiledPolicy): JsonValue {
  const spec = celSpecOf(policy);
  if (spec === undefined || policy.unsupportedKind !== undefined) return policy.document as unknown as JsonValue;
  return {
    apiVersion: policy.document.apiVersion,
    kind: policy.namespace !== "" ? "NamespacedValidatingPolicy" : "ValidatingPolicy",
    metadata: { ...policy.document.metadata },
    spec,
  };
}
