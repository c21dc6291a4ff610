/**
 * `bylaw test -o json|yaml|markdown`: what Kyverno's `test` prints in those formats
 * (cmd/cli/kubectl-kyverno/commands/test/output.go, printOutputFormats), so a script written against
 * `kyverno test -o json` reads Bylaw's output the same way: per suite, after its "Loading …" lines,
 * an array of `{ID, POLICY, RULE, RESOURCE, RESULT, REASON}` rows (`Message` with
 * --detailed-results) between empty lines; with --fail-only the failing rows of every suite once,
 * after the summary line. Bylaw's own document (summary, per-suite errors, warnings, explanations)
 * is `-o bylaw-json` and `-o bylaw-yaml`.
 */
import type { RowResult } from "../../test-suite/types.js";
import { writeGoYaml } from "../../../platform/yaml/index.js";

export type KyvernoFormat = "json" | "yaml" | "markdown";

/** One row of Kyverno's test table (output/table: RowCompact and Message). */
export interface KyvernoRow {
  readonly id: number;
  readonly policy: string;
  readonly rule: string;
  readonly resource: string;
  readonly result: "Pass" | "Fail";
  readonly reason: string;
  readonly message: string;
  readonly failure: boolean;
}

/** The resource a row is about as Kyverno's table names it (`v1/Pod/default/web`); a row that found none names it as the test file does. */
function tableResource(r: RowResult): string {
  return r.subject ?? (r.kind ? `${r.kind}/${r.resource}` : r.resource);
}

/** A suite's rows as Kyverno's table numbers and names them: the rule that produced each result (an `autogen-` rule for a Pod controller). */
export function kyvernoRows(results: readonly RowResult[]): KyvernoRow[] {
  return results.map((r, i) => ({
    id: i + 1,
    policy: r.policy,
    rule: r.resultRule ?? r.rule,
    resource: tableResource(r),
    result: r.ok ? "Pass" : "Fail",
    reason: r.reason,
    message: r.message,
    failure: !r.ok,
  }));
}

/** What Kyverno prints for one table in `format`, blank lines around it included (ends in a newline). */
export function renderKyvernoFormat(format: KyvernoFormat, rows: readonly KyvernoRow[], detailed: boolean): string {
  if (format === "markdown") return `\n${markdown(rows, detailed)}\n\n`;
  const objects = rows.map((r) => ({
    ID: r.id,
    ...(detailed ? { Message: r.message } : {}),
    POLICY: r.policy,
    REASON: r.reason,
    RESOURCE: r.resource,
    RESULT: r.result,
    RULE: r.rule,
  }));
  const body = format === "json" ? goJson(objects) : writeGoYaml(objects);
  return `\n${body}\n\n`;
}

/** Kyverno's Markdown table, cell text as it is (Kyverno escapes nothing), each row's line ending as Kyverno's. */
function markdown(rows: readonly KyvernoRow[], detailed: boolean): string {
  const headers = ["ID", "POLICY", "RULE", "RESOURCE", "RESULT", "REASON", ...(detailed ? ["MESSAGE"] : [])];
  let text = `| ${headers.join(" | ")} | \n|${"----|".repeat(headers.length)}\n`;
  for (const r of rows) {
    text += `| ${r.id} | ${r.policy} | ${r.rule} | ${r.resource} | ${r.result} | ${r.reason} |`;
    text += detailed ? ` ${r.message} |\n` : "\n";
  }
  return text;
}

/**
 * JSON as Go's `json.MarshalIndent(v, "", "  ")` writes it: keys in the order given (callers give
 * them sorted, as Go sorts map keys), and `<`, `>`, `&`, U+2028 and U+2029 escaped as `\u003c` and
 * so on (Go's HTML-safe default), so the bytes match Kyverno's output.
 */
export function goJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/[<>&\u2028\u2029]/g, (ch) => {
    return `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}
