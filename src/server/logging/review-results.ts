/**
 * The rule results of one review as the per-review log line carries them (issue 37): `policy`,
 * `rule` and `result` of the result that decided it (the first fail, else error, else warn, else
 * pass, else skip) as flat fields a log query can select on (Loki: `| json | policy="x"`), and
 * `results`, every non-skip result as `policy/rule: result` (at most 20, then a count of the rest).
 */
import type { PolicyResponse } from "../../engine/index.js";

const ORDER = ["fail", "error", "warn", "pass", "skip"] as const;
const MAX_LISTED = 20;

interface Named {
  readonly policy: string;
  readonly rule: string;
  readonly result: string;
}

function named(responses: readonly PolicyResponse[]): Named[] {
  const out: Named[] = [];
  for (const r of responses) {
    const policy = r.policy.namespace !== "" ? `${r.policy.namespace}/${r.policy.name}` : r.policy.name;
    for (const rule of r.rules) out.push({ policy, rule: rule.rule, result: rule.status });
  }
  return out;
}

/** The fields the review's log line gets; none when no rule applied. */
export function reviewResultFields(responses: readonly PolicyResponse[] | undefined): Record<string, unknown> {
  const all = named(responses ?? []);
  if (all.length === 0) return {};
  let decisive = all[0] as Named;
  for (const status of ORDER) {
    const found = all.find((n) => n.result === status);
    if (found !== undefined) {
      decisive = found;
      break;
    }
  }
  const listed = all.filter((n) => n.result !== "skip");
  return {
    policy: decisive.policy,
    rule: decisive.rule,
    result: decisive.result,
    results: listed.slice(0, MAX_LISTED).map((n) => `${n.policy}/${n.rule}: ${n.result}`),
    ...(listed.length > MAX_LISTED ? { moreResults: listed.length - MAX_LISTED } : {}),
  };
}
