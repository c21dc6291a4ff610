/** A conditions trace (conditions/trace.ts) as an explanation shows it: each operand cut to a preview. */
import type { ConditionsTrace } from "../conditions/index.js";
import { preview } from "./preview.js";
import type { ExplainedConditions } from "./types.js";

export function explained(trace: ConditionsTrace): ExplainedConditions {
  return {
    met: trace.met,
    conditions: trace.steps.map((s) => ({
      at: s.at,
      key: preview(s.key),
      operator: s.operator,
      value: preview(s.value),
      holds: s.holds,
    })),
  };
}
