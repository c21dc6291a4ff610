/** `bylaw apply POLICY... -r RESOURCE...`: check manifests against policies, offline; with --cluster also a cluster's objects (cluster-input.ts). */
import {
  type AnyCompiledException,
  type CompiledPolicy,
  type EngineRequest,
  hasMutateRules,
  jsonEqual,
  type PolicyExplanation,
  policyMatchOf,
  type PolicyResponse,
  type RequestUserInfo,
  type Resource,
} from "../../../engine/index.js";
import { writeFilesAtomically } from "../../../platform/files/index.js";
import { loadPolicyPaths } from "../../git-source.js";
import type { LoadedDocument } from "../../../platform/yaml/index.js";
import type { Io } from "../../io.js";
import { compileDocuments } from "../../../library/compile-documents.js";
import { requestsFor } from "../../../platform/offline-values/build-request.js";
import { unmappedSubresources } from "../../../platform/offline-values/values-subresources.js";
import { existingResources } from "../../../library/existing-resources.js";
import { offlineEngine } from "../../offline/offline-engine.js";
import { loadSuiteCluster, type SuiteCluster } from "../../test-suite/context-file.js";
import { cliRegistryAccess } from "../../offline/registry-setup.js";
import { type RegistryAccess, withRegistryPasses } from "../../../platform/registry/index.js";
import {
  apartRank,
  applyApartToPayload,
  applyToAuthzRequest,
  applyToPayload,
  explainProcessed,
  processResource,
} from "../../../library/process-resource.js";
import { countResults } from "../../output/types.js";
import { appliedRuleCount } from "../../output/kyverno-apply-text.js";
import { loadSetDocuments, policySetsDir, readCatalog, selectSets } from "../../policy-sets/index.js";
import type { ValuesSpec } from "../../../platform/offline-values/values-file.js";
import { enforceDocument } from "./enforce.js";
import { APPLY_HELP } from "./help.js";
import { usageLine } from "../../usage.js";
import { exceptionsAmongResources, loadExceptions } from "./load-exceptions.js";
import { applyExitCode } from "./kyverno-flags.js";
import { loadJsonPayloads } from "../../offline/json-payloads.js";
import { loadAuthzPayloads } from "../../offline/authz-payloads.js";
import { loadResources, loadUserInfo, loadValuesFile } from "./load-inputs.js";
import { type CrdKinds, loadCrds, withCrdKind } from "../../offline/crd-kinds.js";
import { parseApplyArgs, type ApplyOptions } from "./options.js";
import { renderResults } from "./render-results.js";
import { renderLoadReport } from "./load-performance.js";
import type { ClusterSession } from "./cluster-input.js";
import { dedupe, outputFiles, producedResources, type ProducedResource } from "./resource-output.js";
import { resultRows, type ResourceResponses } from "./result-rows.js";
import { withPolicyFixHint } from "../../../platform/policy-documents/index.js";

export { APPLY_HELP };

/** Exit codes: 0 clean, 1 a rule failed or errored, 2 bad usage, unreadable input or an invalid policy, 3 internal error. */
export async function applyCommand(args: string[], io: Io): Promise<number> {
  const parsed = parseApplyArgs(args);
  if (parsed.kind === "help") {
    io.out(APPLY_HELP);
    return 0;
  }
  if (parsed.kind === "usage-error") {
    io.err(usageLine("apply", parsed.message));
    return 2;
  }
  for (const w of parsed.warnings) io.err(w);
  return run(parsed.options, io);
}

async function run(options: ApplyOptions, io: Io): Promise<number> {
  const registry = await cliRegistryAccess(options.registry);
  if (!registry.ok) return usageFailure(io, registry.error.message);
  // Only --cluster loads the cluster client (src/kube). With --registry the session reads images too.
  const cluster =
    options.cluster === undefined
      ? undefined
      : (await import("./cluster-input.js")).openCluster(options.cluster, process.env, registry.value);
  if (cluster !== undefined && !cluster.ok) return usageFailure(io, cluster.error.message);
  try {
    return await runWith(options, io, cluster?.value, registry.value);
  } finally {
    cluster?.value.close();
  }
}

/** --context-file (Kyverno's apply flag): the objects and image data of a Context file, read as a test's `context`. */
async function loadContextFile(
  path: string | undefined,
): Promise<{ ok: true; cluster?: SuiteCluster } | { ok: false; error: string }> {
  if (path === undefined) return { ok: true };
  const loaded = await loadSuiteCluster(".", path, []);
  if (loaded.errors.length > 0) return { ok: false, error: `--context-file: ${loaded.errors.join("; ")}` };
  return { ok: true, cluster: loaded.cluster };
}

async function runWith(
  options: ApplyOptions,
  io: Io,
  cluster: ClusterSession | undefined,
  registry: RegistryAccess | undefined,
): Promise<number> {
  const stdin = () => io.readStdin();
  const setDocs = await policySetDocuments(options.policySets, io);
  if (setDocs === undefined) return 2;
  // The resources are also the objects validate.cel paramRefs take params from (ValidatingAdmissionPolicy bindings get none, as in Kyverno's apply).
  let paramPool: readonly Resource[] = [];
  // Without --cluster, the resources, targets and parameters answer apiCall GETs, as Kyverno's apply builds its fake client from them.
  let apiCallPool: readonly Resource[] = [];
  const context = await loadContextFile(options.contextFile);
  if (!context.ok) return usageFailure(io, context.error);
  // --parameter-resource: the params of ValidatingAdmissionPolicy bindings (and of paramRefs, beside the resources).
  const crds = await loadCrds(options.crdPaths, stdin);
  for (const e of crds.errors) io.err(`error: ${e}`);
  if (crds.errors.length > 0) return 2;
  cluster?.typeCrds(crds.documents);
  const parameters = await loadResources(options.parameterPaths, {
    stdin,
    label: "--parameter-resource: ",
    crds: crds.kinds,
  });
  for (const e of parameters.errors) io.err(`error: ${e}`);
  if (parameters.errors.length > 0) return 2;
  const engine =
    cluster?.engine ??
    offlineEngine(undefined, context.cluster, {
      ...(registry !== undefined ? { registry } : {}),
      params: () => [...parameters.resources, ...paramPool],
      ...(options.parameterPaths.length > 0 ? { bindingParams: () => parameters.resources } : {}),
      apiCallObjects: () => apiCallPool,
      crds: crds.documents,
    });
  const read = await loadPolicyPaths(options.policyPaths, {
    stdin,
    ...(options.gitBranch !== undefined ? { gitBranch: options.gitBranch } : {}),
    ...(options.gitAuth !== undefined ? { auth: options.gitAuth } : {}),
  });
  for (const w of read.warnings) io.err(`warning: ${w}`);
  const docs = [...read.docs, ...setDocs];
  const policies = compileDocuments(options.enforce ? docs.map(enforce) : docs, engine);
  // A policy path that holds anything Bylaw cannot account for fails the run (exit 2).
  let bad = policies.fatal.length > 0 || policies.errors.length > 0;
  for (const f of policies.fatal) io.err(`error: ${f}`);
  for (const e of policies.errors) io.err(`error: ${withPolicyFixHint(e)}`);
  for (const w of policies.warnings) io.err(`warning: ${withPolicyFixHint(w)}`);
  if (policies.compiled.length === 0 && !bad)
    io.err(
      `warning: no policies found in ${[...options.policyPaths, ...options.policySets].join(", ")}: 0 policies applied`,
    );
  const resourceArgs =
    cluster === undefined
      ? { paths: options.resourcePaths, names: [] }
      : (await import("./cluster-input.js")).splitResourceArgs(options.resourcePaths);
  const loaded = await loadResources(resourceArgs.paths, { stdin, crds: crds.kinds });
  if (cluster !== undefined) {
    const live = await cluster.load(policies.compiled, resourceArgs.names);
    // --show-performance: Kyverno's loading summary, on stderr (stdout may carry -p or JSON).
    if (live.performance !== undefined) io.err(renderLoadReport(live.performance));
    loaded.resources.push(...live.resources);
    loaded.errors.push(...live.errors);
    loaded.warnings.push(...live.warnings);
    loaded.warnings.push(...(await cluster.loadTypes(policies.compiled, loaded.resources)));
  }
  paramPool = loaded.resources;
  for (const e of loaded.errors) io.err(`error: ${e}`);
  for (const w of loaded.warnings) io.err(`warning: ${w}`);
  bad ||= loaded.errors.length > 0;
  const targets = await loadResources(options.targetPaths, { stdin, label: "--target-resource: ", crds: crds.kinds });
  for (const e of targets.errors) io.err(`error: ${e}`);
  bad ||= targets.errors.length > 0;
  apiCallPool = [...loaded.resources, ...targets.resources, ...parameters.resources];
  const payloads = await loadJsonPayloads(options.jsonPaths, stdin, "--json: ");
  for (const e of payloads.errors) io.err(`error: ${e}`);
  bad ||= payloads.errors.length > 0;
  // As Kyverno's CLI, HTTP requests before Envoy checks.
  const authz = [
    await loadAuthzPayloads("HTTP", options.httpPayloadPaths),
    await loadAuthzPayloads("Envoy", options.envoyPayloadPaths),
  ];
  for (const e of authz.flatMap((a) => a.errors)) io.err(`error: ${e}`);
  bad ||= authz.some((a) => a.errors.length > 0);
  const authzRequests = authz.flatMap((a) => a.requests.map((request, i) => ({ request, file: a.files[i] ?? "" })));
  const exceptions = await loadExceptions(options.exceptionPaths, stdin, engine);
  if (options.exceptionsWithResources) {
    const inline = await exceptionsAmongResources(resourceArgs.paths, engine);
    exceptions.exceptions.push(...inline.exceptions);
    exceptions.errors.push(...inline.errors);
  }
  for (const e of exceptions.errors) io.err(`error: ${e}`);
  for (const w of exceptions.warnings) io.err(`warning: ${w}`);
  bad ||= exceptions.errors.length > 0;
  const values = await loadValuesFile(options.valuesFile, options.set);
  if (!values.ok) return usageFailure(io, values.error);
  for (const w of values.warnings) io.err(`warning: ${w}`);
  // Offline, a rule on a subresource needs a values `subresources` entry (with --cluster, discovery answers).
  if (cluster === undefined)
    for (const w of unmappedSubresources(policies.compiled, values.value.subresources)) io.err(`warning: ${w}`);
  if (cluster !== undefined) {
    const live = await cluster.namespaceLabels(values.value, loaded.resources);
    for (const e of live.errors) io.err(`error: ${e}`);
    for (const w of live.warnings) io.err(`warning: ${w}`);
    bad ||= live.errors.length > 0;
    values.value = live.values;
  }
  const userInfo = await loadUserInfo(options.userinfo);
  if (!userInfo.ok) return usageFailure(io, userInfo.error);
  const inputs = loaded.resources.length + payloads.payloads.length + authzRequests.length;
  if (bad && (policies.compiled.length === 0 || inputs === 0)) return 2;

  const allExceptions = [...exceptions.exceptions, ...policies.exceptions];
  const request = requestBuilder({
    values: values.value,
    userInfo: userInfo.value,
    exceptions: allExceptions,
    crds: crds.kinds,
  });
  const existing = existingResources(targets.resources);
  const progress =
    loaded.resources.length >= 10 && io.showsProgress?.(options.policyReport ? "yaml" : options.format) === true;
  // With --registry, a pass that asked for images not fetched yet is run again once they are
  // (with --cluster the session already fetches a resource's images with its cluster reads).
  const { batches, apart, mutated, explanations } = await withRegistryPasses(registry, async () => {
    const batches: ResourceResponses[] = [];
    /** Each resource's responses of the kinds Kyverno's CLI runs apart, listed after every other batch. */
    const apart: ResourceResponses[] = [];
    const mutated: ProducedResource[] = [];
    const explanations: PolicyExplanation[] = [];
    for (const [index, resource] of loaded.resources.entries()) {
      if (progress)
        io.progress(
          `applying ${policies.compiled.length} policies to resource ${index + 1} of ${loaded.resources.length}`,
        );
      const evaluate = () => processResource(engine, policies.compiled, resource, request, existing);
      const done = cluster === undefined ? evaluate() : await cluster.evaluate(evaluate);
      if (options.explain) {
        const explain = () => explainProcessed(engine, done, request);
        explanations.push(...(cluster === undefined ? explain() : await cluster.evaluate(explain)));
      }
      const origin = loaded.origins[index];
      // As Kyverno 1.19's CLI (kyverno/kyverno#15332), JSON-mode ValidatingPolicies also run on each resource, as it stands after mutation, taken as a raw JSON payload.
      const asJson = applyToPayload(engine, policies.compiled, done.patched, allExceptions);
      batches.push({ index, ...(origin !== undefined ? { origin } : {}), responses: [...done.responses, ...asJson] });
      apart.push({ index, ...(origin !== undefined ? { origin } : {}), responses: done.apart });
      if (!jsonEqual(done.patched, resource))
        mutated.push({ why: "mutated", policy: lastMutator(done.responses), rule: "", resource: done.patched });
    }
    return { batches, apart, mutated, explanations };
  });
  io.progressDone();
  payloads.payloads.forEach((payload, i) => {
    const origin = payloads.origins[i];
    const at = { index: loaded.resources.length + i, ...(origin !== undefined ? { origin } : {}) };
    batches.push({ ...at, responses: applyToPayload(engine, policies.compiled, payload, allExceptions) });
    // The kinds run apart on the payloads too, each rank after its resources (Kyverno: DeletingPolicies on --json payloads).
    apart.push({ ...at, responses: applyApartToPayload(engine, policies.compiled, payload, allExceptions) });
  });
  batches.push(...apartInKyvernoOrder(apart));
  // As Kyverno's CLI, after everything else: every HTTP-mode policy on each --http-payload request,
  // then every Envoy-mode policy on each --envoy-payload check.
  authzRequests.forEach(({ request, file }, i) => {
    batches.push({
      index: loaded.resources.length + payloads.payloads.length + i,
      origin: { source: file, payload: request.mode },
      responses: applyToAuthzRequest(engine, policies.compiled, request),
    });
  });
  const responses = batches.flatMap((b) => b.responses);
  const produced = dedupe([...mutated, ...producedResources(responses)]);
  const rows = resultRows(batches, values.value, options.auditWarn);
  renderResults(io, options, {
    rows,
    responses,
    produced,
    policies: policies.compiled.length,
    policyRules: appliedRuleCount(policies.compiled),
    resources: loaded.resources.length + payloads.payloads.length,
    exceptions: exceptions.exceptions.length + policies.exceptions.length,
    nowMillis: engine.env.ports.clock.nowMillis(),
    cwd: process.cwd(),
    namespaceLabels: values.value.namespaceLabels,
    payloadMutatePolicies: payloads.payloads.flatMap(() => kyvernoMutators(policies.compiled)),
    ...(options.explain ? { explanations } : {}),
  });
  if (bad) return 2;
  if (options.outputPath !== undefined) {
    try {
      await writeFilesAtomically(outputFiles(options.outputPath, produced));
      io.err(`wrote ${produced.length} mutated or generated resources to ${options.outputPath}`);
    } catch (e) {
      return usageFailure(io, `--output ${options.outputPath}: ${(e as Error).message}`);
    }
  }
  const exit = applyExitCode(countResults(rows), options);
  if (exit.message !== undefined)
    sayWhyItExits(io, options, { message: exit.message, lineEnds: exit.lineEnds === true });
  return exit.code;
}

/** The kyverno.io policies with mutate rules, in policy order (Kyverno's CLI runs them on --json payloads too). */
function kyvernoMutators(policies: readonly CompiledPolicy[]): string[] {
  return policies.filter((p) => policyMatchOf(p).language === "kyverno" && hasMutateRules(p)).map((p) => p.name);
}

/**
 * Kyverno's line for a warning exit: on stdout after its own outputs (the text, -t, -p), as kyverno
 * apply prints it; on stderr after Bylaw's machine formats and with -i (stdout carries only data).
 */
function sayWhyItExits(io: Io, options: ApplyOptions, why: { message: string; lineEnds: boolean }): void {
  const kyvernoOutput = (options.format === "text" || options.table || options.policyReport) && !options.resourcesOnly;
  if (!kyvernoOutput) io.err(why.message);
  else if (why.lineEnds || io.outUnterminated === undefined) io.out(why.message);
  else io.outUnterminated(why.message);
}

/**
 * The kinds Kyverno's CLI runs apart, as its apply lists them after the other results: every
 * ImageValidatingPolicy response resource by resource, then every DeletingPolicy one (resources,
 * then JSON payloads).
 */
function apartInKyvernoOrder(apart: readonly ResourceResponses[]): ResourceResponses[] {
  const ranks = [...new Set(apart.flatMap((b) => b.responses.map((r) => apartRank(r.policy) ?? 0)))].sort(
    (a, b) => a - b,
  );
  return ranks.flatMap((rank) =>
    apart
      .map((b) => ({ ...b, responses: b.responses.filter((r) => apartRank(r.policy) === rank) }))
      .filter((b) => b.responses.length > 0),
  );
}

/** The documents of the named sets; undefined (after saying why) when a name is unknown. */
async function policySetDocuments(names: readonly string[], io: Io): Promise<LoadedDocument[] | undefined> {
  if (names.length === 0) return [];
  const catalog = await readCatalog(policySetsDir());
  for (const p of catalog.problems) io.err(`warning: ${p}`);
  const selected = selectSets(catalog, names);
  if (!selected.ok) {
    io.err(`bylaw apply: ${selected.error}`);
    return undefined;
  }
  return loadSetDocuments(selected.sets);
}

function enforce(doc: LoadedDocument): LoadedDocument {
  return doc.value === undefined ? doc : { ...doc, value: enforceDocument(doc.value) };
}

interface RequestInputs {
  readonly values: ValuesSpec;
  readonly userInfo: RequestUserInfo | undefined;
  readonly exceptions: readonly AnyCompiledException[];
  /** --crd-paths: a custom resource of a CRD's kind is matched with the CRD's plural as its API resource. */
  readonly crds: CrdKinds;
}

/**
 * The engine request for one resource and policy. Compiled exceptions ride on the request
 * (EngineRequest.exceptions); the engine decides which apply.
 */
function requestBuilder(inputs: RequestInputs): (r: Resource, p: CompiledPolicy) => EngineRequest {
  const { values, userInfo, exceptions, crds } = inputs;
  return requestsFor({
    values,
    userInfo,
    finish: (built) => {
      const withKind = withCrdKind(built, crds);
      return exceptions.length === 0 ? withKind : { ...withKind, exceptions };
    },
  });
}

function usageFailure(io: Io, message: string): number {
  io.err(`error: ${message}`);
  return 2;
}

function lastMutator(responses: readonly PolicyResponse[]): string {
  const names = responses
    .filter((r) => r.rules.some((x) => x.type === "Mutation" && x.status === "pass"))
    .map((r) => r.policy.name);
  return names.join(",");
}
