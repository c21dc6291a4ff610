/**
 * `bylaw test -t/--test-case-selector "policy=P,rule=R,resource=N"` (kyverno test's flag, default
 * "policy=*,rule=*,resource=*"): only the rows whose policy, rule and resource names match run and
 * are reported. Each value is a wildcard (`*` any text, `?` one character); a key left out matches
 * everything.
 */
import type { RowResult, SuiteResult } from "../../test-suite/types.js";

interface CaseSelector {
  readonly policy: RegExp;
  readonly rule: RegExp;
  readonly resource: RegExp;
}

type Parsed = { ok: true; selector: CaseSelector } | { ok: false; error: string };

const KEYS = ["policy", "rule", "resource"] as const;

export function parseCaseSelector(text: string): Parsed {
  const found: Record<string, string> = {};
  for (const part of text.split(",")) {
    if (part.trim() === "") continue;
    const [key = "", value, ...rest] = part.split("=").map((s) => s.trim());
    if (value === undefined || rest.length > 0 || !(KEYS as readonly string[]).includes(key))
      return {
        ok: false,
        error: `--test-case-selector ${JSON.stringify(text)}: expected comma-separated policy=NAME, rule=NAME, resource=NAME (wildcards * and ?), got ${JSON.stringify(part.trim())}`,
      };
    found[key] = value;
  }
  const pattern = (key: string) => wildcard(found[key] ?? "*");
  return { ok: true, selector: { policy: pattern("policy"), rule: pattern("rule"), resource: pattern("resource") } };
}

function wildcard(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${body}$`);
}

function selected(row: RowResult, s: CaseSelector): boolean {
  return s.policy.test(row.policy) && s.rule.test(row.rule) && s.resource.test(row.resource);
}

/**
 * The suites with only the selected rows; a suite that had rows and has none selected is left out,
 * as Kyverno's test does not run it.
 */
export function selectCases(suites: readonly SuiteResult[], s: CaseSelector): SuiteResult[] {
  return suites
    .map((suite) => ({ suite, results: suite.results.filter((r) => selected(r, s)) }))
    .filter(({ suite, results }) => results.length > 0 || suite.results.length === 0)
    .map(({ suite, results }) => ({ ...suite, results }));
}
