/** `bylaw apply POLICY... -r RESOURCE...`: check manifests against policies, offline. */
import { parseArgs } from "node:util";
import { stringify } from "yaml";
import { isObject, type JsonObject } from "../../../engine/api/json.js";
import { resourceKind, resourceName, resourceNamespace, type RequestUserInfo, type Resource } from "../../../engine/api/resource.js";
import { jsonEqual } from "../../../engine/api/json-equal.js";
import { buildRequest } from "../../offline/build-request.js";
import type { PolicyResponse } from "../../../engine/pipeline/types.js";
import { loadPaths, writeFilesAtomically } from "../../../platform/files/index.js";
import { existingResources } from "../../offline/existing-resources.js";
import { processResource } from "../../offline/process-resource.js";
import { APPLY_HELP } from "./help.js";
import { dedupe, outputFiles, producedResources, yamlStream, type ProducedResource } from "./resource-output.js";
import type { Io } from "../../io.js";
import { compileDocuments } from "../../load-policies.js";
import { offlineEngine } from "../../offline/offline-engine.js";
import { renderTable } from "../../output/table.js";
import { buildPolicyReports } from "../../report/policy-report.js";
import { parseUserInfo } from "../../test-suite/userinfo-file.js";
import { EMPTY_VALUES, parseValues, type ValuesSpec } from "../../test-suite/values-file.js";
import { effectiveAction } from "../../../engine/pipeline/failure-action.js";

export { APPLY_HELP };

interface Row {
  readonly policy: string;
  readonly rule: string;
  readonly resource: string;
  readonly result: string;
  readonly action: string;
  readonly message: string;
}

export async function applyCommand(args: string[], io: Io): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        resource: { type: "string", short: "r", multiple: true },
        "target-resource": { type: "string", short: "t", multiple: true },
        "values-file": { type: "string", short: "f" },
        userinfo: { type: "string", short: "u" },
        output: { type: "string", short: "o" },
        "output-format": { type: "string" },
        "policy-report": { type: "boolean", short: "p", default: false },
        "audit-warn": { type: "boolean", default: false },
        "detailed-results": { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (e) {
    io.err(`bylaw apply: ${(e as Error).message}\n\n${APPLY_HELP}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(APPLY_HELP);
    return 0;
  }
  const resourcePaths = values.resource ?? [];
  if (positionals.length === 0 || resourcePaths.length === 0) {
    io.err(`bylaw apply: give at least one POLICY and one -r RESOURCE\n\n${APPLY_HELP}`);
    return 2;
  }
  let format = values["output-format"] ?? "table";
  let outputPath = values.output;
  if (outputPath === "table" || outputPath === "json") {
    io.err(`warning: -o ${outputPath} is read as --output-format ${outputPath}; -o/--output now names where to write mutated and generated resources`);
    format = outputPath;
    outputPath = undefined;
  }
  if (format !== "table" && format !== "json") {
    io.err(`bylaw apply: --output-format must be table or json (got ${JSON.stringify(format)})`);
    return 2;
  }
  if (positionals.includes("-") && resourcePaths.includes("-")) {
    io.err("bylaw apply: only one of POLICY and RESOURCE can be read from stdin (-)");
    return 2;
  }
  const stdin = { stdin: () => io.readStdin() };
  const engine = offlineEngine();
  const policyDocs = await loadPaths(positionals, stdin);
  const policies = compileDocuments(policyDocs, engine);
  let bad = policies.fatal.length > 0;
  for (const f of policies.fatal) io.err(`error: ${f}`);
  for (const w of policies.warnings) io.err(`warning: ${w}`);
  const resourceDocs = await loadPaths(resourcePaths, stdin);
  const resources: Resource[] = [];
  for (const d of resourceDocs) {
    if (d.error !== undefined) {
      io.err(`error: ${d.error}`);
      bad = true;
    } else if (isObject(d.value) && typeof d.value["kind"] === "string") {
      resources.push(...expandList(d.value));
    } else if (d.value !== undefined) {
      io.err(`warning: ${d.source}: document ${d.index + 1}: skipped: not a Kubernetes object (no kind)`);
    }
  }
  const targets: Resource[] = [];
  for (const d of await loadPaths(values["target-resource"] ?? [], stdin)) {
    if (d.error !== undefined) {
      io.err(`error: --target-resource: ${d.error}`);
      bad = true;
    } else if (isObject(d.value) && typeof d.value["kind"] === "string") targets.push(...expandList(d.value));
  }
  let valuesSpec: ValuesSpec = EMPTY_VALUES;
  if (values["values-file"] !== undefined) {
    const docs = await loadPaths([values["values-file"]]);
    const doc = docs.find((d) => d.value !== undefined || d.error !== undefined);
    if (!doc || doc.value === undefined) {
      io.err(`error: --values-file: ${doc?.error ?? "empty file"}`);
      return 2;
    }
    const pv = parseValues(doc.value);
    for (const w of pv.warnings) io.err(`warning: ${values["values-file"]}: ${w}`);
    valuesSpec = pv.values;
  }
  let userInfo: RequestUserInfo | undefined;
  if (values.userinfo !== undefined) {
    const docs = await loadPaths([values.userinfo]);
    const doc = docs.find((d) => d.value !== undefined || d.error !== undefined);
    const pu = doc?.value !== undefined ? parseUserInfo(doc.value) : { ok: false as const, error: doc?.error ?? "empty file" };
    if (!pu.ok) {
      io.err(`error: --userinfo: ${pu.error}`);
      return 2;
    }
    userInfo = pu.userInfo;
  }
  if (bad && (policies.compiled.length === 0 || resources.length === 0)) return 2;

  const responses: PolicyResponse[] = [];
  const mutated: ProducedResource[] = [];
  const existing = existingResources(targets);
  resources.forEach((resource, i) => {
    io.progress(`applying ${policies.compiled.length} policies to resource ${i + 1} of ${resources.length}`);
    const done = processResource(engine, policies.compiled, resource, (r, policy) => buildRequest(r, policy, valuesSpec, userInfo), existing);
    responses.push(...done.responses);
    if (!jsonEqual(done.patched, resource)) mutated.push({ why: "mutated", policy: lastMutator(done.responses), rule: "", resource: done.patched });
  });
  io.progressDone();
  const produced = dedupe([...mutated, ...producedResources(responses)]);
  const rows: Row[] = [];
  const counts = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
  for (const response of responses) {
    for (const rule of response.rules) {
      const ns = resourceNamespace(response.resource);
      const action = rule.type === "Validation" ? effectiveAction(response.policy, rule.rule, ns, valuesSpec.namespaceLabels.get(ns) ?? {}) : "-";
      let result: keyof typeof counts = rule.status;
      if (result === "fail" && (!response.policy.scored || (values["audit-warn"] && action === "Audit"))) result = "warn";
      counts[result]++;
      rows.push({ policy: response.policy.name, rule: rule.rule, resource: describe(rule.patchedTarget ?? response.resource), result, action, message: rule.message });
    }
  }
  if (values["policy-report"]) {
    const reports = buildPolicyReports(responses, engine.env.ports.clock.nowMillis());
    io.out(reports.map((r) => stringify(r)).join("---\n"));
  } else if (format === "json") {
    io.out(JSON.stringify({ summary: counts, results: rows, ...(outputPath === undefined ? { resources: produced.map((p) => ({ ...p, rule: p.rule || undefined })) } : {}) }, null, 2));
  } else {
    const shown = values["detailed-results"] ? rows : rows.filter((r) => r.result === "fail" || r.result === "warn" || r.result === "error");
    if (shown.length > 0) io.out(renderTable(["POLICY", "RULE", "RESOURCE", "RESULT", "ACTION", "MESSAGE"], shown.map((r) => [r.policy, r.rule, r.resource, r.result, r.action, r.message])));
    io.out(`\nApplied ${policies.compiled.length} policies to ${resources.length} resources.`);
    io.out(`pass: ${counts.pass}, fail: ${counts.fail}, warn: ${counts.warn}, error: ${counts.error}, skip: ${counts.skip} `);
    if (outputPath === undefined && produced.length > 0) io.out(`\n---\n${yamlStream(produced)}`);
  }
  if (bad) return 2;
  if (outputPath !== undefined) {
    try {
      await writeFilesAtomically(outputFiles(outputPath, produced));
      io.err(`wrote ${produced.length} mutated or generated resources to ${outputPath}`);
    } catch (e) {
      io.err(`error: --output ${outputPath}: ${(e as Error).message}`);
      return 2;
    }
  }
  return counts.fail > 0 || counts.error > 0 ? 1 : 0;
}

function lastMutator(responses: readonly PolicyResponse[]): string {
  const names = responses.filter((r) => r.rules.some((x) => x.type === "Mutation" && x.status === "pass")).map((r) => r.policy.name);
  return names.join(",");
}

function describe(r: Resource): string {
  const ns = resourceNamespace(r);
  return `${resourceKind(r)}/${ns ? `${ns}/` : ""}${resourceName(r)}`;
}

/** A `kind: List` (as `kubectl get -o yaml` prints) holds its objects in `items`. */
function expandList(doc: JsonObject): Resource[] {
  if (doc["kind"] === "List" && Array.isArray(doc["items"])) return doc["items"].filter(isObject);
  return [doc];
}
