/**
 * Admission warnings (Kyverno `pkg/webhooks/utils/warning.go`): one `policy <policy>.<rule>: <message>`
 * per rule whose result is warn, and per non-skip rule of a policy with `spec.emitWarning: true`.
 */
import type { PolicyResponse } from "../../engine/index.js";
import { emitsWarning } from "./policy-traits.js";

export function warningMessages(responses: readonly PolicyResponse[]): string[] {
  const out: string[] = [];
  for (const response of responses) {
    const all = emitsWarning(response.policy);
    for (const r of response.rules) {
      if (r.status === "warn" || (all && r.status !== "skip")) out.push(`policy ${response.policy.name}.${r.rule}: ${r.message}`);
    }
  }
  return out;
}
