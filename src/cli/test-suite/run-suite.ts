/**
 * Run one kyverno-test.yaml suite: load its policies, resources, values and user info, evaluate
 * every validate policy against every resource, and compare each expected row.
 */
import { dirname, resolve } from "node:path";
import {
  type AnyCompiledException,
  type CompiledPolicy,
  type Engine,
  type ExistingResources,
  type AuthzRequest,
  isObject,
  type JsonObject,
  type JsonValue,
  type Operation,
  parseApiVersion,
  type PolicyExplanation,
  type PolicyResponse,
  type RequestUserInfo,
  type Resource,
  resourceApiVersion,
  resourceKind,
  resourceName,
  resourceNamespace,
  isAuthzPolicy,
} from "../../engine/index.js";
import { existingResources } from "../../library/existing-resources.js";
import {
  applyToAuthzRequest,
  applyToPayload,
  explainProcessed,
  processResource,
} from "../../library/process-resource.js";
import { type AuthzMode, loadAuthzPayloads } from "../offline/authz-payloads.js";
import { requestsFor } from "../../platform/offline-values/build-request.js";
import { crdScopes, type CrdKinds, loadCrds, withCrdKind } from "../offline/crd-kinds.js";
import { unmappedSubresources } from "../../platform/offline-values/values-subresources.js";
import { loadPaths } from "../../platform/files/index.js";
import { withPolicyFixHint } from "../../platform/policy-documents/index.js";
import { loadPolicies } from "../load-policies.js";
import { compareRows, loadedSubject } from "./compare.js";
import { loadSuiteCluster, type SuiteCluster } from "./context-file.js";
import { inDefaultNamespace } from "../../platform/default-namespace.js";
import { loadSuiteExceptions } from "./exceptions-file.js";
import { loadJsonPayloads } from "../offline/json-payloads.js";
import { loadExpectedResources, type ResourceFile } from "./expected-resources.js";
import { resourceCheck } from "./resource-check.js";
import { rowResources } from "./row-resources.js";
import { keyPayload } from "./payload-key.js";
import { parseTestFile, type ExpectedResult, type TestSpec } from "./test-file.js";
import type { RowResult, SuiteResult } from "./types.js";
import { parseUserInfo } from "./userinfo-file.js";
import { EMPTY_VALUES, parseValues, type ValuesSpec } from "../../platform/offline-values/values-file.js";

/** The engine for a suite, given the objects and image data its `context` file and `clusterResources` hold. */
type EngineFactory = (spec: TestSpec, cluster?: SuiteCluster) => Engine;

/**
 * Every document of a test file is a test, as in Kyverno: one result per document. The first
 * document's rows keep the plain `idPrefix`; the Nth (N ≥ 2) document's rows use `idPrefix#N`.
 */
export async function runSuites(
  file: string,
  makeEngine: EngineFactory,
  idPrefix: string = dirname(file),
  options: SuiteOptions = {},
): Promise<SuiteResult[]> {
  const how = { makeEngine, explain: options.explain === true };
  const docs = (await loadPaths([file])).filter((d) => d.value !== undefined || d.error !== undefined);
  if (docs.length === 0) return [failed(file, "", `${file}: empty test file`, [])];
  const out: SuiteResult[] = [];
  for (const [i, doc] of docs.entries()) {
    const where = docs.length > 1 ? `${file} (document ${i + 1})` : file;
    out.push(await runTestDocument(file, where, doc, how, i === 0 ? idPrefix : `${idPrefix}#${i + 1}`));
  }
  return out;
}

/** How suites run: `explain` also gathers how each policy's results came about (bylaw test --explain). */
interface SuiteOptions {
  readonly explain?: boolean;
}

/** The first test of a test file (see runSuites for all of them). */
export async function runSuite(
  file: string,
  makeEngine: EngineFactory,
  idPrefix: string = dirname(file),
): Promise<SuiteResult> {
  const [first] = await runSuites(file, makeEngine, idPrefix);
  return first ?? failed(file, "", `${file}: empty test file`, []);
}

async function runTestDocument(
  file: string,
  where: string,
  doc: { value?: JsonValue; error?: string },
  how: { readonly makeEngine: EngineFactory; readonly explain: boolean },
  idPrefix: string,
): Promise<SuiteResult> {
  const makeEngine = how.makeEngine;
  const dir = dirname(file);
  if (doc.error !== undefined || doc.value === undefined)
    return failed(file, "", doc.error ?? `${where}: empty document`, []);
  const parsed = parseTestFile(doc.value);
  if (!parsed.ok) return failed(file, "", `${where}: ${parsed.errors.join("; ")}`, []);
  const spec = parsed.spec;
  const warnings: string[] = parsed.warnings.map((w) => `${where}: ${w}`);
  const fail = (msg: string): SuiteResult => failed(file, spec.name, msg, rowsFailing(spec, idPrefix, msg));

  let values: ValuesSpec = EMPTY_VALUES;
  if (spec.variables !== undefined) {
    const vdocs = await loadPaths([resolve(dir, spec.variables)]);
    const bad = vdocs.find((d) => d.error !== undefined);
    if (bad) return fail(`${file}: variables: ${bad.error}`);
    const v = vdocs.find((d) => d.value !== undefined);
    if (v?.value !== undefined) {
      const pv = parseValues(v.value);
      if (pv.errors.length > 0) return fail(`${file}: variables: ${spec.variables}: ${pv.errors.join("; ")}`);
      values = pv.values;
      warnings.push(...pv.warnings.map((w) => `${spec.variables}: ${w}`));
    }
  }
  if (spec.values !== undefined) {
    const pv = parseValues(spec.values);
    if (pv.errors.length > 0) return fail(`${file}: values: ${pv.errors.join("; ")}`);
    values = mergeValues(values, pv.values);
  }
  let userInfo: RequestUserInfo | undefined;
  if (spec.userinfo !== undefined) {
    const udocs = await loadPaths([resolve(dir, spec.userinfo)]);
    const u = udocs.find((d) => d.value !== undefined || d.error !== undefined);
    if (!u || u.value === undefined) return fail(`${file}: userinfo: ${u?.error ?? "empty file"}`);
    const pu = parseUserInfo(u.value);
    if (!pu.ok) return fail(`${file}: userinfo: ${pu.error}`);
    userInfo = pu.userInfo;
  }
  const loadedCluster = await loadSuiteCluster(dir, spec.context, spec.clusterResources, spec.globalContextEntries);
  if (loadedCluster.errors.length > 0) return fail(`${file}: ${loadedCluster.errors.join("; ")}`);
  const crds = await loadCrds(
    loadedCluster.cluster.crdPaths ?? [],
    () => Promise.resolve(""),
    "clusterResources: spec.crds: ",
  );
  if (crds.errors.length > 0) return fail(`${file}: ${crds.errors.join("; ")}`);
  const params = await loadParamResources(dir, spec.paramResources);
  if (params.errors.length > 0) return fail(`${file}: paramResources: ${params.errors.join("; ")}`);
  const rdocs = await loadPaths(spec.resources.map((r) => resolve(dir, r)));
  const missing = rdocs.filter((d) => d.error !== undefined);
  if (missing.length > 0) return fail(`${file}: resources: ${missing.map((d) => d.error).join("; ")}`);
  // As Kyverno's loader, a namespaced resource without one is in `default` before duplicates are found
  // (a Pod without a namespace and one in `default` with the same name are the same Pod).
  const distinct = withoutDuplicates(
    rdocs
      .map((d) => d.value)
      .filter((v): v is JsonObject => isObject(v) && typeof v["kind"] === "string")
      .map((r) => inDefaultNamespace(r, crdScopes(crds.kinds))),
  );
  const resources = distinct.uniques;
  // With clusterResources, Kyverno's test puts the resources in its fake cluster too (commands/test `runTest`: allObjects).
  const clusterObjects =
    spec.clusterResources.length > 0
      ? [...loadedCluster.cluster.resources, ...resources, ...crds.documents]
      : loadedCluster.cluster.resources;
  const engine = makeEngine(spec, {
    ...loadedCluster.cluster,
    resources: clusterObjects,
    params: params.docs,
    crds: crds.documents,
  });
  const policies = await loadPolicies(
    spec.policies.map((p) => resolve(dir, p)),
    engine,
  );
  if (policies.fatal.length > 0) return fail(`${file}: policies: ${policies.fatal.join("; ")}`);
  warnings.push(...policies.warnings, ...unmappedSubresources(policies.compiled, values.subresources));
  const policyErrors = policies.errors;
  const files = await loadExpectedResources(dir, spec);
  const present = await loadExisting(dir, spec, files);
  if (present.errors.length > 0) return fail(`${file}: ${present.errors.join("; ")}`);
  const existing = existingResources(present.docs);
  const loadedExceptions = await loadSuiteExceptions(dir, spec.exceptions, engine);
  if (loadedExceptions.errors.length > 0) return fail(`${file}: exceptions: ${loadedExceptions.errors.join("; ")}`);
  warnings.push(...loadedExceptions.warnings);
  const exceptions = [...loadedExceptions.exceptions, ...policies.exceptions];
  // Kyverno's CLI refuses the combination (commands/test/test.go).
  if (
    exceptions.length > 0 &&
    policies.compiled.some((p) => p.language === "cel" && p.origin.kind.boundBy !== undefined)
  )
    return fail(`${file}: use of exceptions with ValidatingAdmissionPolicies is not supported`);
  const payloads = await loadJsonPayloads(
    spec.jsonPayloads.map((f) => resolve(dir, f)),
    () => Promise.resolve(""),
  );
  if (payloads.errors.length > 0) return fail(`${file}: jsonPayloads: ${payloads.errors.join("; ")}`);
  keyPayloads(payloads, dir, spec.jsonPayloads);
  const authzRequests: { request: AuthzRequest; file: string }[] = [];
  for (const [mode, field, written] of [
    ["HTTP", "httpPayloads", spec.httpPayloads],
    ["Envoy", "envoyPayloads", spec.envoyPayloads],
  ] as const satisfies readonly (readonly [AuthzMode, string, readonly string[]])[]) {
    const loadedRequests = await loadAuthzPayloads(
      mode,
      written.map((f) => resolve(dir, f)),
    );
    if (loadedRequests.errors.length > 0) return fail(`${file}: ${field}: ${loadedRequests.errors.join("; ")}`);
    // Each request under its file as the test file names it, so a row may name that file.
    authzRequests.push(...loadedRequests.requests.map((request, i) => ({ request, file: written[i] ?? "" })));
  }
  const inputs: SuiteInputs = {
    engine,
    policies: policies.compiled,
    resources,
    payloads: payloads.payloads,
    authzRequests,
    values,
    userInfo,
    existing,
    exceptions,
    crds: crds.kinds,
    ...(how.explain ? { explanations: [] } : {}),
  };

  const byOperation = new Map<string, PolicyResponse[]>();
  const responsesFor = (op: string | undefined): PolicyResponse[] => {
    const key = op ?? "";
    let r = byOperation.get(key);
    if (!r) {
      r = evaluateAll(inputs, op as Operation | undefined);
      byOperation.set(key, r);
    }
    return r;
  };
  const rows: RowResult[] = [];
  let unchecked = 0;
  spec.results.forEach((expected, i) => {
    for (const resource of rowResources(expected, () => responsesFor(expected.operation))) {
      const invalid = policies.invalid.get(bareName(expected.policy));
      const verdicts =
        invalid !== undefined
          ? [{ ok: false, actual: null, reason: `Invalid policy: ${withPolicyFixHint(invalid)}`, message: invalid }]
          : compareRows(expected, resource, responsesFor(expected.operation), resourceCheck(expected, files));
      const checked: typeof verdicts = [];
      for (const v of verdicts) {
        if (!("unchecked" in v && v.unchecked === true)) {
          checked.push(v);
          continue;
        }
        unchecked++;
        warnings.push(
          `${file}: results[${i}] (${expected.policy}, ${resource}): ${v.message}: the row is not checked, as kyverno test leaves it (failOnMissingResources: true fails it)`,
        );
      }
      checked.forEach((verdict, n) => {
        const subject =
          verdict.reason === "Not found" && !("subject" in verdict)
            ? loadedSubject(resources, expected.kind, resource)
            : undefined;
        const r = row(idPrefix, i, expected, resource, subject === undefined ? verdict : { ...verdict, subject });
        rows.push(n === 0 ? r : { ...r, sameCheck: true });
      });
    }
  });
  return {
    path: dir,
    file,
    name: spec.name,
    warnings,
    ...(unchecked > 0 ? { unchecked } : {}),
    ...(policyErrors.length > 0 ? { policyErrors } : {}),
    results: rows,
    ...(inputs.explanations !== undefined ? { explanations: inputs.explanations } : {}),
    loaded: {
      userInfo: spec.userinfo !== undefined,
      jsonPayloads: spec.jsonPayloads.length > 0,
      httpPayloads: spec.httpPayloads.length > 0,
      envoyPayloads: spec.envoyPayloads.length > 0,
      clusterResources: spec.clusterResources.length > 0,
      duplicates: distinct.duplicates,
      // As Kyverno's count, without the HTTP- and Envoy-mode policies (its loader keeps them apart).
      policies: policies.compiled.filter((p) => !isAuthzPolicy(p)).length + policies.invalid.size,
      resources: resources.length,
      exceptions: loadedExceptions.exceptions.length,
    },
  };
}

/**
 * The resources with each (group, kind, namespace, name) once, the first kept, as Kyverno's test
 * (resource.RemoveDuplicates); the others named as its warning names them (`Kind name namespace`).
 */
function withoutDuplicates(docs: readonly JsonObject[]): { uniques: JsonObject[]; duplicates: string[] } {
  const seen = new Set<string>();
  const uniques: JsonObject[] = [];
  const duplicates = new Set<string>();
  for (const doc of docs) {
    const [kind, name, namespace] = [resourceKind(doc), resourceName(doc), resourceNamespace(doc)];
    const key = JSON.stringify([parseApiVersion(resourceApiVersion(doc)).group, kind, namespace, name]);
    if (!seen.has(key)) {
      seen.add(key);
      uniques.push(doc);
    } else duplicates.add(`${kind} ${name} ${namespace}`);
  }
  return { uniques, duplicates: [...duplicates] };
}

/** Each payload under its file as the test file names it, so a row may name that file (payload-key.ts). */
function keyPayloads(
  loaded: { readonly payloads: readonly JsonObject[]; readonly origins: readonly { readonly source: string }[] },
  dir: string,
  written: readonly string[],
): void {
  const asWritten = new Map(written.map((f) => [resolve(dir, f), f]));
  loaded.payloads.forEach((payload, i) => {
    const source = loaded.origins[i]?.source;
    const name = source === undefined ? undefined : asWritten.get(source);
    if (name !== undefined) keyPayload(payload, name);
  });
}

/** What a suite's rows are evaluated from: its engine, policies and resources, and what every request is built with. */
interface SuiteInputs {
  readonly engine: Engine;
  readonly policies: readonly CompiledPolicy[];
  readonly resources: readonly Resource[];
  /** The test file's `jsonPayloads`: only JSON-mode ValidatingPolicies run on them (and on each resource, too). */
  readonly payloads: readonly JsonObject[];
  /** The test file's `httpPayloads`, then its `envoyPayloads`: only the mode's ValidatingPolicies run on each. */
  readonly authzRequests: readonly { readonly request: AuthzRequest; readonly file: string }[];
  readonly values: ValuesSpec;
  readonly userInfo: RequestUserInfo | undefined;
  readonly existing: ExistingResources;
  readonly exceptions: readonly AnyCompiledException[];
  /** The ClusterResources' CRDs: a custom resource is matched with its CRD's plural (crd-kinds.ts). */
  readonly crds: CrdKinds;
  /** --explain: where each evaluation's explanations are gathered. */
  readonly explanations?: PolicyExplanation[];
}

/** Every policy on every resource, with the operation a row names (undefined: the values' or CREATE). */
function evaluateAll(inputs: SuiteInputs, op: Operation | undefined): PolicyResponse[] {
  const { engine, policies, resources, values, userInfo, existing, exceptions, crds } = inputs;
  const out: PolicyResponse[] = [];
  const request = requestsFor({
    values,
    userInfo,
    operation: op,
    finish: (request) => {
      const built = withCrdKind(request, crds);
      return exceptions.length > 0 ? { ...built, exceptions } : built;
    },
  });
  // HTTP- and Envoy-mode policies run on their requests only: Kyverno's loader keeps them apart, so a
  // row naming a resource for one finds no result ("Not found"), never an excluded pass.
  const onResources = policies.filter((p) => !isAuthzPolicy(p));
  for (const resource of resources) {
    const done = processResource(engine, onResources, resource, request, existing);
    out.push(...done.responses);
    inputs.explanations?.push(...explainProcessed(engine, done, request));
    // As Kyverno 1.19's PolicyProcessor (shared by apply and test; kyverno/kyverno#15332), JSON-mode ValidatingPolicies also run on each resource, as it stands after mutation, taken as a raw JSON payload.
    out.push(...applyToPayload(engine, policies, done.patched, exceptions));
    // As Kyverno's test: ImageValidatingPolicies, then DeletingPolicies, on the resource as given.
    out.push(...done.apart);
  }
  for (const payload of inputs.payloads) out.push(...applyToPayload(engine, policies, payload, exceptions));
  for (const { request, file } of inputs.authzRequests) {
    const responses = applyToAuthzRequest(engine, policies, request);
    for (const r of responses) keyPayload(r.resource, file);
    out.push(...responses);
  }
  return out;
}

function mergeValues(a: ValuesSpec, b: ValuesSpec): ValuesSpec {
  return {
    globalValues: { ...a.globalValues, ...b.globalValues },
    ruleValues: new Map([...a.ruleValues, ...b.ruleValues]),
    resourceValues: new Map([...a.resourceValues, ...b.resourceValues]),
    namespaceLabels: new Map([...a.namespaceLabels, ...b.namespaceLabels]),
    namespaceObjects: new Map([...a.namespaceObjects, ...b.namespaceObjects]),
    ...(a.subresources !== undefined || b.subresources !== undefined
      ? { subresources: [...(a.subresources ?? []), ...(b.subresources ?? [])] }
      : {}),
  };
}

function bareName(policy: string): string {
  const i = policy.lastIndexOf("/");
  return i < 0 ? policy : policy.slice(i + 1);
}

function row(
  prefix: string,
  i: number,
  e: ExpectedResult,
  resource: string,
  v: Pick<RowResult, "ok" | "actual" | "reason" | "message" | "subject" | "resultRule">,
): RowResult {
  return {
    id: `${prefix}::${i}::${resource}`,
    policy: e.policy,
    rule: e.rule,
    resource,
    kind: e.kind,
    expected: e.result,
    ...v,
  };
}

function rowsFailing(spec: TestSpec, prefix: string, msg: string): RowResult[] {
  const rows: RowResult[] = [];
  spec.results.forEach((e, i) => {
    for (const r of e.allResources === true ? ["(every matching resource)"] : e.resources)
      rows.push(row(prefix, i, e, r, { ok: false, actual: null, reason: "Suite error", message: msg }));
  });
  return rows;
}

function failed(file: string, name: string, error: string, results: RowResult[]): SuiteResult {
  return { path: dirname(file), file, name, error, warnings: [], results };
}

/** Objects the suite says already exist: mutate-existing targets, and the clone sources its rows name (already read). */
async function loadExisting(
  dir: string,
  spec: TestSpec,
  files: ReadonlyMap<string, ResourceFile>,
): Promise<{ docs: JsonObject[]; errors: string[] }> {
  const docs: JsonObject[] = [];
  const errors: string[] = [];
  if (spec.targetResources.length > 0) {
    for (const d of await loadPaths(spec.targetResources.map((p) => resolve(dir, p)))) {
      if (d.error !== undefined) errors.push(`targetResources: ${d.error}`);
      else if (isObject(d.value) && typeof d.value["kind"] === "string") docs.push(d.value);
    }
  }
  for (const f of new Set(
    spec.results.flatMap((r) => (r.cloneSourceResource !== undefined ? [r.cloneSourceResource] : [])),
  )) {
    const loaded = files.get(f);
    if (loaded === undefined || "error" in loaded)
      errors.push(`cloneSourceResource: ${loaded && "error" in loaded ? loaded.error : `${f} not loaded`}`);
    else docs.push(...loaded.docs.filter((d) => typeof d["kind"] === "string"));
  }
  return { docs, errors };
}

/** The objects of the test's `paramResources` files (every document with a kind; a `kind: List` stands for its items). */
async function loadParamResources(
  dir: string,
  paths: readonly string[],
): Promise<{ docs: JsonObject[]; errors: string[] }> {
  const docs: JsonObject[] = [];
  const errors: string[] = [];
  for (const d of await loadPaths(paths.map((p) => resolve(dir, p)))) {
    if (d.error !== undefined) errors.push(d.error);
    else if (isObject(d.value) && d.value["kind"] === "List" && Array.isArray(d.value["items"]))
      docs.push(...d.value["items"].filter(isObject));
    else if (isObject(d.value) && typeof d.value["kind"] === "string") docs.push(d.value);
  }
  return { docs, errors };
}
