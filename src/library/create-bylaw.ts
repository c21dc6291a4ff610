/**
 * `createBylaw`: Kyverno policies checked from a program, with no CLI and no cluster. Policies
 * compile once, here; each `check` runs them against one resource in Kyverno's CLI order.
 */
import {
  resultAction,
  resourceNamespace,
  type CompiledPolicy,
  type Engine,
  type PolicyResponse,
  type Resource,
  type RuleResult,
  type RuleStatus,
} from "../engine/index.js";
import { parseDocuments, type LoadedDocument } from "../platform/yaml/index.js";
import { checkRequest } from "./check-request.js";
import { compileDocuments } from "./compile-documents.js";
import { existingResources } from "./existing-resources.js";
import { createOfflineEngine } from "../platform/offline-engine.js";
import { explainProcessed, processResource } from "./process-resource.js";
import type {
  Bylaw,
  BylawOptions,
  BylawOutcome,
  CheckOptions,
  PolicyInput,
  PolicyRuleResult,
  ResourceReport,
} from "./types.js";

export function createBylaw(options: BylawOptions): BylawOutcome {
  const engine = createOfflineEngine({
    // createBylaw reads no registry: a verifyImages check or imageRegistry entry says so.
    noRegistryHint: "createBylaw reads no image registry; check such policies with `bylaw apply --registry`",
    ...(options.apiCalls !== undefined ? { apiCalls: options.apiCalls } : {}),
    ...(options.globalContext !== undefined ? { globalEntries: options.globalContext } : {}),
  });
  const loaded = compileDocuments(options.policies.flatMap(documentsOf), engine);
  const errors = [...loaded.fatal, ...loaded.errors];
  if (loaded.compiled.length === 0 && errors.length === 0)
    errors.push("no policy among the inputs: give at least one ClusterPolicy or Policy");
  if (errors.length > 0) return { ok: false, errors, warnings: loaded.warnings };
  const policies = loaded.compiled;
  const exceptions = loaded.exceptions;
  return {
    ok: true,
    bylaw: {
      policies,
      exceptions,
      warnings: loaded.warnings,
      check: (resource, checkOptions = {}) =>
        check(engine, policies, resource, checkOptions, (r) => checkRequest(r, checkOptions, exceptions)),
    } satisfies Bylaw,
  };
}

/** Text is parsed as YAML (JSON is YAML); an object is one document. Each is named `policies[i]` in errors. */
function documentsOf(input: PolicyInput, i: number): LoadedDocument[] {
  const source = `policies[${i}]`;
  return typeof input === "string" ? parseDocuments(input, source) : [{ source, index: 0, value: input }];
}

function check(
  engine: Engine,
  policies: readonly CompiledPolicy[],
  resource: Resource,
  options: CheckOptions,
  request: (r: Resource) => ReturnType<typeof checkRequest>,
): ResourceReport {
  const invalid = notAResource(resource);
  if (invalid !== undefined) return unchecked(resource, invalid);
  // One request per resource for every policy (it does not depend on the policy), so processResource prepares it once.
  const requests = new Map<Resource, ReturnType<typeof checkRequest>>();
  const shared = (r: Resource): ReturnType<typeof checkRequest> => {
    let built = requests.get(r);
    if (built === undefined) {
      built = request(r);
      requests.set(r, built);
    }
    return built;
  };
  const processed = processResource(engine, policies, resource, shared, existingResources(options.existing ?? []));
  const namespace = resourceNamespace(resource);
  const labels = options.namespaceLabels ?? {};
  const results = [...processed.responses, ...processed.apart].flatMap((response) =>
    response.rules.map((r) => withPolicy(response, r, namespace, labels)),
  );
  const summary: Record<RuleStatus, number> = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
  for (const r of results) summary[r.status]++;
  return {
    resource,
    patched: processed.patched,
    results,
    generated: results.flatMap((r) => r.generated ?? []),
    summary,
    blocked: results.some((r) => r.action === "Enforce"),
    ...(options.explain === true ? { explanations: explainProcessed(engine, processed, request) } : {}),
  };
}

function withPolicy(
  response: PolicyResponse,
  result: RuleResult,
  namespace: string,
  labels: Readonly<Record<string, string>>,
): PolicyRuleResult {
  const p = response.policy;
  const policy = p.namespace !== "" ? `${p.namespace}/${p.name}` : p.name;
  const enforceable = result.status === "fail" && (result.type === "Validation" || result.type === "ImageVerify");
  // Only a failure has an action here (a result's own, for a ValidatingAdmissionPolicy binding, is dropped otherwise).
  const rest: RuleResult = { ...result };
  delete (rest as { action?: unknown }).action;
  return enforceable ? { ...rest, policy, action: resultAction(p, result, namespace, labels) } : { ...rest, policy };
}

/** Why `resource` is not something a policy can check (a caller's null, array or kind-less object), if it is not. */
function notAResource(resource: unknown): string | undefined {
  const got = resource === null ? "null" : Array.isArray(resource) ? "an array" : typeof resource;
  if (resource === null || typeof resource !== "object" || Array.isArray(resource))
    return `check: the resource must be a Kubernetes object (a mapping with apiVersion, kind and metadata); got ${got}`;
  const kind = (resource as Record<string, unknown>)["kind"];
  if (typeof kind !== "string" || kind === "")
    return "check: the resource has no kind; give a Kubernetes object with apiVersion, kind and metadata";
  return undefined;
}

/** The report for a resource no policy could run on: an error, never a pass. */
function unchecked(resource: Resource, error: string): ResourceReport {
  return {
    resource,
    patched: resource,
    results: [],
    generated: [],
    summary: { pass: 0, fail: 0, warn: 0, error: 1, skip: 0 },
    blocked: false,
    error,
  };
}
