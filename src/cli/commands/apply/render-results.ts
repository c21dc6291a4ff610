/** Print `bylaw apply` results in the chosen format: kyverno apply's text, Bylaw's summary, json, junit, sarif, or PolicyReports. */
import {
  buildCliReports,
  buildPolicyReports,
  explanationText,
  type JsonObject,
  type PolicyExplanation,
  type PolicyResponse,
} from "../../../engine/index.js";
import { writeKubeYaml, writeYamlStream } from "../../../platform/yaml/index.js";
import type { Io } from "../../io.js";
import { renderHumanSummary } from "../../output/human-summary.js";
import { renderJunit } from "../../output/junit.js";
import {
  hiddenErrorsText,
  type KyvernoApplyText,
  renderKyvernoApplyProlog,
  renderKyvernoApplyText,
} from "../../output/kyverno-apply-text.js";
import { renderSarif } from "../../output/sarif.js";
import { countResults, type ResultRow } from "../../output/types.js";
import { packageVersion } from "../../policy-sets/sets-dir.js";
import type { ApplyOptions } from "./options.js";
import { producedResources, yamlStream, type ProducedResource } from "./resource-output.js";
import { renderResultsTable } from "./results-table.js";
import { renderGeneratedExceptions } from "./generated-exceptions.js";
import { sortedKeys } from "./sorted-keys.js";

interface RunResults {
  readonly rows: readonly ResultRow[];
  readonly responses: readonly PolicyResponse[];
  readonly produced: readonly ProducedResource[];
  readonly policies: number;
  /** The header's policy rule count (appliedRuleCount). */
  readonly policyRules: number;
  readonly resources: number;
  readonly exceptions: number;
  readonly nowMillis: number;
  readonly cwd: string;
  /** The kyverno.io mutate policies once per --json payload (kyverno-apply-text.ts `payloadMutatePolicies`). */
  readonly payloadMutatePolicies: readonly string[];
  /** The values file's namespace labels (a failure's action, for --generate-exceptions with --audit-warn). */
  readonly namespaceLabels: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** --explain: how each policy's results came about, per resource. */
  readonly explanations?: readonly PolicyExplanation[];
}

/** `--generate-exceptions`: the PolicyExceptions instead of the results; as kyverno apply, -p wins over
 * it and it wins over -t and the text output. True when it printed them. */
function renderExceptionsInstead(io: Io, options: ApplyOptions, run: RunResults): boolean {
  if (!options.generateExceptions || options.policyReport || options.resourcesOnly) return false;
  const text = renderGeneratedExceptions(run.responses, {
    auditWarn: options.auditWarn,
    ttl: options.exceptionTtl,
    format: options.format === "json" ? "json" : "yaml",
    namespaceLabels: run.namespaceLabels,
  });
  if (text !== "") io.out(text.trimEnd());
  return true;
}

export function renderResults(io: Io, options: ApplyOptions, run: RunResults): void {
  const { rows, produced } = run;
  const resourcesToStdout = options.outputPath === undefined;
  if (renderExceptionsInstead(io, options, run)) return;
  if (options.resourcesOnly || (options.table && !options.policyReport)) {
    renderKyvernoModes(io, options, run);
    return;
  }
  if (options.policyReport) {
    renderReports(io, options, run);
    return;
  }
  switch (options.format) {
    case "json":
      io.out(
        JSON.stringify(
          {
            summary: countResults(rows),
            results: rows.map((r) => ({
              policy: r.policy,
              rule: r.rule,
              resource: r.resource,
              result: r.result,
              action: r.action,
              message: r.message,
            })),
            ...(resourcesToStdout ? { resources: produced.map((p) => ({ ...p, rule: p.rule || undefined })) } : {}),
            ...(run.explanations !== undefined ? { explanations: run.explanations } : {}),
          },
          null,
          2,
        ),
      );
      return;
    case "junit":
      io.out(renderJunit(rows, run.cwd));
      return;
    case "sarif": {
      const version = packageVersion();
      io.out(
        JSON.stringify(renderSarif(rows, { cwd: run.cwd, ...(version !== undefined ? { version } : {}) }), null, 2),
      );
      return;
    }
    case "text":
      renderKyvernoText(io, options, run);
      return;
    case "summary":
      renderSummary(io, options, run);
  }
}

/** --output-format summary: Bylaw's own text (output/human-summary.ts), --explain's, then the resources. */
function renderSummary(io: Io, options: ApplyOptions, run: RunResults): void {
  io.out(
    renderHumanSummary(run.rows, {
      policies: run.policies,
      resources: run.resources,
      exceptions: run.exceptions,
      detailed: options.detailed,
      cwd: run.cwd,
    }),
  );
  if (run.explanations !== undefined) io.out(`\n${explanationText(run.explanations)}`);
  if (options.outputPath === undefined && run.produced.length > 0) io.out(`\n---\n${yamlStream(run.produced)}`);
}

/**
 * The default text: kyverno apply's (output/kyverno-apply-text.ts), the rule errors it leaves out on
 * stderr; --explain's text after it.
 */
function renderKyvernoText(io: Io, options: ApplyOptions, run: RunResults): void {
  const text = renderKyvernoApplyText(kyvernoTextInput(options, run));
  io.out(text.slice(0, -1));
  const errors = hiddenErrorsText(run.responses);
  if (errors !== "") io.err(errors.slice(0, -1));
  if (run.explanations !== undefined) io.out(`\n${explanationText(run.explanations)}`);
}

/** What kyverno apply's text and -t layouts are drawn from. */
function kyvernoTextInput(options: ApplyOptions, run: RunResults): KyvernoApplyText {
  return {
    header: !options.resourcesOnly,
    rules: run.policyRules,
    resourceCount: run.resources,
    exceptions: run.exceptions,
    responses: run.responses,
    generated: (response) => producedResources([response]).flatMap((p) => (p.why === "generated" ? [p.resource] : [])),
    counts: countResults(run.rows),
    resources: options.resourcesOnly ? "elsewhere" : options.outputPath === undefined ? "printed" : "to-files",
    auditWarn: options.auditWarn,
    payloadMutatePolicies: run.payloadMutatePolicies,
    namespaceLabels: run.namespaceLabels,
  };
}

/**
 * -p: Kyverno 1.19's CLI prints the merged openreports ClusterReport, then each namespaced policy's
 * report after a `---` line, as sigs.k8s.io/yaml writes it (keys sorted, a sequence at its key's
 * indentation, a blank line after each report) or, with --output-format json, one JSON object per
 * report. --report-api wgpolicyk8s prints Bylaw's PolicyReport per namespace.
 */
function renderReports(io: Io, options: ApplyOptions, run: RunResults): void {
  if (options.reportApi === "wgpolicyk8s") {
    const reports = buildPolicyReports(run.responses, run.nowMillis);
    io.out(
      options.format === "json"
        ? JSON.stringify(reports, null, 2)
        : writeYamlStream(reports.map((value) => ({ value }))),
    );
    return;
  }
  // Each report as Go's fmt.Fprintln prints the marshalled bytes (YAML ends in a newline of its own).
  const printed = (r: JsonObject): string =>
    `${options.format === "json" ? JSON.stringify(sortedKeys(r)) : writeKubeYaml(r)}\n`;
  const text = buildCliReports(run.responses, run.nowMillis)
    // The merged cluster report has no namespace; every other report is a namespaced policy's, after `---`.
    .map((r) => ((r["metadata"] as JsonObject)["namespace"] === undefined ? printed(r) : `---\n${printed(r)}`))
    .join("");
  if (text !== "") io.out(text.slice(0, -1));
}

/** kyverno apply's -i/--stdin (stdout only the resources, results to stderr) and -t/--table. */
function renderKyvernoModes(io: Io, options: ApplyOptions, run: RunResults): void {
  if (options.resourcesOnly) {
    const toStderr: Io = { ...io, out: (text) => io.err(text) };
    // The text leaves out its header and the resources, as kyverno apply -i; for the other formats
    // outputPath "" keeps the resources out of the results on stderr.
    if (options.table) toStderr.out(renderResultsTable(run.rows, options));
    else if (options.format === "text") renderKyvernoText(toStderr, options, run);
    else renderResults(toStderr, { ...options, resourcesOnly: false, outputPath: "" }, run);
    if (options.outputPath === undefined && run.produced.length > 0) io.out(yamlStream(run.produced));
    return;
  }
  // As kyverno apply -t: its header and what its processor printed (the mutated and generated
  // resources), then the table.
  io.out(renderKyvernoApplyProlog(kyvernoTextInput(options, run)) + renderResultsTable(run.rows, options));
}
