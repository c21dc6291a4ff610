/** The result a PolicyReport (and `bylaw test`) shows for a rule: a failed rule of an unscored policy is a warning. */
import type { RuleStatus } from "../api/rule-result.js";

export function reportResult(status: RuleStatus, scored: boolean): string {
  return status === "fail" && !scored ? "warn" : status;
}
