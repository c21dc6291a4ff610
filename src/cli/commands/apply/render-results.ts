/** Print `bylaw apply` results in the chosen format: text for people, json, junit, sarif, or PolicyReports. */
import { buildPolicyReports, type PolicyResponse } from "../../../engine/index.js";
import { writeYamlStream } from "../../../platform/yaml/index.js";
import type { Io } from "../../io.js";
import { renderHumanSummary } from "../../output/human-summary.js";
import { renderJunit } from "../../output/junit.js";
import { renderSarif } from "../../output/sarif.js";
import { countResults, type ResultRow } from "../../output/types.js";
import { packageVersion } from "../../policy-sets/sets-dir.js";
import type { ApplyOptions } from "./options.js";
import { yamlStream, type ProducedResource } from "./resource-output.js";
import { renderResultsTable } from "./results-table.js";

interface RunResults {
  readonly rows: readonly ResultRow[];
  readonly responses: readonly PolicyResponse[];
  readonly produced: readonly ProducedResource[];
  readonly policies: number;
  readonly resources: number;
  readonly exceptions: number;
  readonly nowMillis: number;
  readonly cwd: string;
}

export function renderResults(io: Io, options: ApplyOptions, run: RunResults): void {
  const { rows, produced } = run;
  const resourcesToStdout = options.outputPath === undefined;
  if (options.resourcesOnly || (options.table && !options.policyReport)) {
    renderKyvernoModes(io, options, run);
    return;
  }
  if (options.policyReport) {
    io.out(writeYamlStream(buildPolicyReports(run.responses, run.nowMillis).map((value) => ({ value }))));
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
      io.out(
        renderHumanSummary(rows, {
          policies: run.policies,
          resources: run.resources,
          exceptions: run.exceptions,
          detailed: options.detailed,
          cwd: run.cwd,
        }),
      );
      if (resourcesToStdout && produced.length > 0) io.out(`\n---\n${yamlStream(produced)}`);
  }
}

/** kyverno apply's -i/--stdin (stdout only the resources, results to stderr) and -t/--table. */
function renderKyvernoModes(io: Io, options: ApplyOptions, run: RunResults): void {
  const resourcesToStdout = options.outputPath === undefined;
  const resources = run.produced.length > 0 ? yamlStream(run.produced) : undefined;
  if (options.resourcesOnly) {
    const toStderr: Io = { ...io, out: (text) => io.err(text) };
    // outputPath "" keeps the resources out of the results on stderr.
    renderResults(toStderr, { ...options, resourcesOnly: false, outputPath: "" }, run);
    if (resourcesToStdout && resources !== undefined) io.out(resources);
    return;
  }
  io.out(renderResultsTable(run.rows, options.detailed));
  if (resourcesToStdout && resources !== undefined) io.out(`\n---\n${resources}`);
}
