/** `bylaw apply POLICY... -r RESOURCE...`: check manifests against policies, offline. */
import { parseArgs } from "node:util";
import { stringify } from "yaml";
import { isObject, type JsonObject } from "../../../engine/api/json.js";
import { resourceKind, resourceName, resourceNamespace, type RequestUserInfo, type Resource } from "../../../engine/api/resource.js";
import { hasValidateRules } from "../../../engine/policy/compiled-policy.js";
import { buildRequest } from "../../offline/build-request.js";
import type { PolicyResponse } from "../../../engine/pipeline/types.js";
import { loadPaths } from "../../../platform/files/index.js";
import type { Io } from "../../io.js";
import { compileDocuments } from "../../load-policies.js";
import { offlineEngine } from "../../offline/offline-engine.js";
import { renderTable } from "../../output/table.js";
import { buildPolicyReports } from "../../report/policy-report.js";
import { parseUserInfo } from "../../test-suite/userinfo-file.js";
import { EMPTY_VALUES, parseValues, type ValuesSpec } from "../../test-suite/values-file.js";
import { effectiveAction } from "../../../engine/pipeline/failure-action.js";

export const APPLY_HELP = `Usage: bylaw apply POLICY... -r RESOURCE... [flags]

Check Kubernetes manifests against Kyverno ClusterPolicy/Policy documents, with no cluster.
POLICY and RESOURCE are files (YAML, multi-document, or JSON) or folders (read recursively);
"-" reads from standard input (for either, not both).

Flags:
  -r, --resource PATH      a resource file or folder (repeatable; required)
  -f, --values-file PATH   a cli.kyverno.io/v1alpha1 Values file (globalValues, per-rule/per-resource
                           values, namespaceSelector labels)
  -u, --userinfo PATH      a cli.kyverno.io/v1alpha1 UserInfo file (roles, clusterRoles, userInfo)
  -o, --output FORMAT      table (default) or json
  -p, --policy-report      print PolicyReport / ClusterPolicyReport YAML instead of the table
      --audit-warn         report failures of Audit rules as warnings (they then do not fail the run)
      --detailed-results   show a row for passing and skipped rules too (default: only fail, warn, error)
  -h, --help               show this help

Exit codes:
  0  no rule failed and no rule errored
  1  a rule failed (fail), or a rule could not be evaluated (error)
  2  bad usage or unreadable input (a message names the file and document)

Example:
  bylaw apply examples/policies -r examples/resources
  kubectl get pods -A -o yaml | bylaw apply policies/ -r -`;

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
        "values-file": { type: "string", short: "f" },
        userinfo: { type: "string", short: "u" },
        output: { type: "string", short: "o", default: "table" },
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
  if (values.output !== "table" && values.output !== "json") {
    io.err(`bylaw apply: --output must be table or json (got ${JSON.stringify(values.output)})`);
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
  for (const resource of resources) {
    for (const policy of policies.compiled) {
      if (hasValidateRules(policy)) responses.push(engine.validate(policy, buildRequest(resource, policy, valuesSpec, userInfo)));
    }
  }
  const rows: Row[] = [];
  const counts = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
  for (const response of responses) {
    for (const rule of response.rules) {
      const ns = resourceNamespace(response.resource);
      const action = effectiveAction(response.policy, rule.rule, ns, valuesSpec.namespaceLabels.get(ns) ?? {});
      let result: keyof typeof counts = rule.status;
      if (result === "fail" && (!response.policy.scored || (values["audit-warn"] && action === "Audit"))) result = "warn";
      counts[result]++;
      rows.push({ policy: response.policy.name, rule: rule.rule, resource: describe(response.resource), result, action, message: rule.message });
    }
  }
  if (values["policy-report"]) {
    const reports = buildPolicyReports(responses, engine.env.ports.clock.nowMillis());
    io.out(reports.map((r) => stringify(r)).join("---\n"));
  } else if (values.output === "json") {
    io.out(JSON.stringify({ summary: counts, results: rows }, null, 2));
  } else {
    const shown = values["detailed-results"] ? rows : rows.filter((r) => r.result === "fail" || r.result === "warn" || r.result === "error");
    if (shown.length > 0) io.out(renderTable(["POLICY", "RULE", "RESOURCE", "RESULT", "ACTION", "MESSAGE"], shown.map((r) => [r.policy, r.rule, r.resource, r.result, r.action, r.message])));
    io.out(`\nApplied ${policies.compiled.length} policies to ${resources.length} resources.`);
    io.out(`pass: ${counts.pass}, fail: ${counts.fail}, warn: ${counts.warn}, error: ${counts.error}, skip: ${counts.skip} `);
  }
  if (bad) return 2;
  return counts.fail > 0 || counts.error > 0 ? 1 : 0;
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
