/**
 * Admission warnings (Kyverno `pkg/webhooks/utils/warning.go`): one `policy <policy>.<rule>: <message>`
 * per rule whose result is warn, and per non-skip rule of a policy with `spec.emitWarning: true`.
 * A ValidatingPolicy with the Warn action warns as Kyverno's vpol handler does (cel-policy-answer.ts).
 */
import type { PolicyResponse } from "../../engine/index.js";
import { celWarnings, isCelPolicy } from "./cel-policy-answer.js";
import { emitsWarning } from "./policy-traits.js";

export function warningMessages(responses: readonly PolicyResponse[]): string[] {
  const out: string[] = [];
  for (const response of responses) {
    if (isCelPolicy(response.policy)) {
      out.push(...celWarnings(response));
      continue;
    }
    const all = emitsWarning(response.policy);
    for (const r of response.rules) {
      if (r.status === "warn" || (all && r.status !== "skip"))
        out.push(`policy ${response.policy.name}.${r.rule}: ${r.message}`);
    }
  }
  return out;
}
