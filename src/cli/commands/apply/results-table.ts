/**
 * `bylaw apply -t/--table`: every rule result as a row of Kyverno's apply table (ID, POLICY, RULE,
 * RESOURCE, RESULT, REASON; --detailed-results adds MESSAGE). The resource reads
 * namespace/Kind/name and the result is capitalised, as kyverno apply --table prints them; RULE is
 * empty for a policy without rules of its own (a ValidatingPolicy, an admission policy), as Kyverno
 * names rules only for ClusterPolicy and Policy.
 */
import { renderTable } from "../../output/table.js";
import type { ResultRow } from "../../output/types.js";

export function renderResultsTable(
  rows: readonly ResultRow[],
  options: { readonly detailed: boolean; readonly plain: boolean },
): string {
  const { detailed } = options;
  const headers = ["ID", "POLICY", "RULE", "RESOURCE", "RESULT", "REASON", ...(detailed ? ["MESSAGE"] : [])];
  const body = rows.map((r, i) => [
    String(i + 1),
    r.policyKey,
    r.ruleless === true ? "" : r.rule,
    kyvernoResource(r.resource),
    r.result.charAt(0).toUpperCase() + r.result.slice(1),
    "",
    ...(detailed ? [r.message] : []),
  ]);
  return renderTable(headers, body, options);
}

/** Bylaw's `Kind/namespace/name` as Kyverno's table writes it, `namespace/Kind/name`. */
function kyvernoResource(resource: string): string {
  const parts = resource.split("/");
  return parts.length === 3 ? `${parts[1]}/${parts[0]}/${parts[2]}` : resource;
}
