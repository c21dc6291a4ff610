/**
 * Admission warnings for evaluation errors under Audit. An Audit rule that errors admits the request
 * (an error is not a verdict, and Audit never blocks); without a warning the requester would not
 * know the policy did not judge it. Each such rule warns `policy <policy>.<rule>: <reason>`, worded
 * as Kyverno's admission warnings (`pkg/webhooks/utils/warning.go`), with the reason cut to its
 * first line and {@link MAX_REASON_CHARS} characters. A policy with `spec.emitWarning: true` already
 * warns every non-skip rule, errors included (warnings.ts), so it is left out here: one warning per rule.
 */
import { resultAction, type PolicyResponse } from "../../engine/index.js";
import { isCelPolicy } from "./cel-policy-answer.js";
import { emitsWarning } from "./policy-traits.js";

export const MAX_REASON_CHARS = 200;

/** Where the request is, for rules whose action depends on the namespace (failureActionOverrides). */
interface RequestPlace {
  readonly namespace: string;
  readonly namespaceLabels?: Readonly<Record<string, string>>;
}

export function auditErrorWarnings(responses: readonly PolicyResponse[], place: RequestPlace): string[] {
  const out: string[] = [];
  for (const response of responses) {
    if (isCelPolicy(response.policy) || emitsWarning(response.policy)) continue;
    for (const r of response.rules) {
      if (r.status !== "error") continue;
      if (resultAction(response.policy, r, place.namespace, place.namespaceLabels) !== "Audit") continue;
      out.push(`policy ${response.policy.name}.${r.rule}: ${shortReason(r.message)}`);
    }
  }
  return out;
}

/** The first line of an error message, at most MAX_REASON_CHARS characters. */
export function shortReason(message: string): string {
  const line = (message.split("\n", 1)[0] ?? "").trim();
  const text = line === "" ? "evaluation error" : line;
  return text.length <= MAX_REASON_CHARS ? text : `${text.slice(0, MAX_REASON_CHARS - 1)}…`;
}
