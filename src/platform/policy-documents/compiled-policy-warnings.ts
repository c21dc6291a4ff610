/** The warnings of a compiled policy (deprecations, …) as lines: `place: policy: field: message`. */
import type { CompiledPolicy } from "../../engine/index.js";

export function compiledPolicyWarnings(place: string, policy: CompiledPolicy): string[] {
  return policy.warnings.flatMap((w) =>
    w.severity === "warning" ? [`${place}: ${policy.name}: ${w.path}: ${w.message}`] : [],
  );
}
