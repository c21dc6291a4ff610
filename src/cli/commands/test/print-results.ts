/**
 * What `bylaw test` prints on stdout once its suites ran: Kyverno's layout for the table and for
 * `-o json|yaml|markdown` (each suite's "Loading …" lines, then its rows; the summary line; with
 * --fail-only the failing rows of every suite once, after the summary, as Kyverno's
 * commands/test/command.go prints them), or one whole document for `-o bylaw-json|bylaw-yaml|junit`.
 */
import { explanationText } from "../../../engine/index.js";
import type { SuiteResult } from "../../test-suite/types.js";
import type { Io } from "../../io.js";
import { kyvernoRows, renderKyvernoFormat, type KyvernoFormat, type KyvernoRow } from "./kyverno-formats.js";
import {
  renderBylawJson,
  renderBylawYaml,
  renderJunit,
  renderLoading,
  renderRowsTable,
  summarize,
  summaryLine,
} from "./output.js";

export const TEST_FORMATS = ["table", "json", "yaml", "markdown", "junit", "bylaw-json", "bylaw-yaml"] as const;
export type TestFormat = (typeof TEST_FORMATS)[number];

interface PrintOptions {
  readonly format: TestFormat;
  readonly detailed: boolean;
  readonly failOnly: boolean;
  /** --remove-color: the table's header without Kyverno's colours (output/table.ts). */
  readonly plain: boolean;
}

export function printResults(suites: readonly SuiteResult[], options: PrintOptions, io: Io): void {
  const { format, detailed, failOnly } = options;
  const table = { detailed, plain: options.plain };
  if (format === "bylaw-json") return io.out(renderBylawJson(suites));
  if (format === "bylaw-yaml") return io.out(renderBylawYaml(suites));
  if (format === "junit") return io.out(renderJunit(suites));
  // io.out ends every text with a newline; Kyverno's blocks already end in one.
  const block = (rows: readonly KyvernoRow[], kyvernoFormat: KyvernoFormat) =>
    io.out(renderKyvernoFormat(kyvernoFormat, rows, detailed).slice(0, -1));
  const failed: KyvernoRow[] = [];
  for (const s of suites) {
    // A test with no results entry to check is not run by Kyverno, so it prints nothing for it.
    if (s.results.length === 0 && s.error === undefined && s.unchecked === undefined) continue;
    io.out(renderLoading(s));
    const rows = kyvernoRows(s.results);
    failed.push(...rows.filter((r) => r.failure));
    if (!failOnly) {
      if (format !== "table") block(rows, format);
      // An empty table prints as its blank lines alone, as Kyverno's printer leaves it.
      else io.out(rows.length > 0 ? `\n${renderRowsTable(rows, table)}\n` : "\n");
    }
    if (s.explanations !== undefined) io.out(`${explanationText(s.explanations)}\n`);
  }
  io.out(`\n${summaryLine(summarize(suites), failOnly)}\n`);
  if (!failOnly || failed.length === 0) return;
  // Kyverno numbers the aggregated table's rows anew; its other formats keep each suite's IDs.
  if (format === "table")
    io.out(
      `Aggregated Failed Test Cases : \n${renderRowsTable(
        failed.map((r, i) => ({ ...r, id: i + 1 })),
        table,
      )}`,
    );
  else block(failed, format);
}
