/** `bylaw apply POLICY... -r RESOURCE...`: check manifests against policies, offline. */
import { type CompiledException, type CompiledPolicy, type EngineRequest, jsonEqual, type PolicyResponse, type RequestUserInfo, type Resource } from "../../../engine/index.js";
import { loadPaths, writeFilesAtomically } from "../../../platform/files/index.js";
import type { LoadedDocument } from "../../../platform/yaml/index.js";
import type { Io } from "../../io.js";
import { compileDocuments } from "../../../library/compile-documents.js";
import { buildRequest } from "../../offline/build-request.js";
import { existingResources } from "../../../library/existing-resources.js";
import { offlineEngine } from "../../offline/offline-engine.js";
import { cliRegistryAccess } from "../../offline/registry-setup.js";
import { withRegistryPasses } from "../../../platform/registry/index.js";
import { processResource } from "../../../library/process-resource.js";
import { countResults } from "../../output/types.js";
import { loadSetDocuments, policySetsDir, readCatalog, selectSets } from "../../policy-sets/index.js";
import type { ValuesSpec } from "../../test-suite/values-file.js";
import { enforceDocument } from "./enforce.js";
import { APPLY_HELP } from "./help.js";
import { usageLine } from "../../usage.js";
import { loadExceptions } from "./load-exceptions.js";
import { loadResources, loadUserInfo, loadValuesFile } from "./load-inputs.js";
import { parseApplyArgs, type ApplyOptions } from "./options.js";
import { renderResults } from "./render-results.js";
import { dedupe, outputFiles, producedResources, type ProducedResource } from "./resource-output.js";
import { resultRows, type ResourceResponses } from "./result-rows.js";

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
  const stdin = () => io.readStdin();
  const setDocs = await policySetDocuments(options.policySets, io);
  if (setDocs === undefined) return 2;
  const registry = await cliRegistryAccess(options.registry);
  if (!registry.ok) return usageFailure(io, registry.error.message);
  const engine = offlineEngine(undefined, undefined, registry.value);
  const docs = [...(await loadPaths(options.policyPaths, { stdin })), ...setDocs];
  const policies = compileDocuments(options.enforce ? docs.map(enforce) : docs, engine);
  // A policy path that holds anything Bylaw cannot account for fails the run (exit 2).
  let bad = policies.fatal.length > 0 || policies.errors.length > 0;
  for (const f of policies.fatal) io.err(`error: ${f}`);
  for (const e of policies.errors) io.err(`error: ${e}`);
  for (const w of policies.warnings) io.err(`warning: ${w}`);
  const loaded = await loadResources(options.resourcePaths, stdin);
  for (const e of loaded.errors) io.err(`error: ${e}`);
  for (const w of loaded.warnings) io.err(`warning: ${w}`);
  bad ||= loaded.errors.length > 0;
  const targets = await loadResources(options.targetPaths, stdin, "--target-resource: ");
  for (const e of targets.errors) io.err(`error: ${e}`);
  bad ||= targets.errors.length > 0;
  const exceptions = await loadExceptions(options.exceptionPaths, stdin);
  for (const e of exceptions.errors) io.err(`error: ${e}`);
  for (const w of exceptions.warnings) io.err(`warning: ${w}`);
  bad ||= exceptions.errors.length > 0;
  const values = await loadValuesFile(options.valuesFile, options.set);
  if (!values.ok) return usageFailure(io, values.error);
  for (const w of values.warnings) io.err(`warning: ${w}`);
  const userInfo = await loadUserInfo(options.userinfo);
  if (!userInfo.ok) return usageFailure(io, userInfo.error);
  if (bad && (policies.compiled.length === 0 || loaded.resources.length === 0)) return 2;

  const request = requestBuilder(values.value, userInfo.value, [...exceptions.exceptions, ...policies.exceptions]);
  const existing = existingResources(targets.resources);
  const progress = loaded.resources.length >= 10 && io.showsProgress?.(options.policyReport ? "yaml" : options.format) === true;
  // With --registry, a pass that asked for images not fetched yet is run again once they are.
  const { batches, mutated } = await withRegistryPasses(registry.value, () => {
    const batches: ResourceResponses[] = [];
    const mutated: ProducedResource[] = [];
    loaded.resources.forEach((resource, index) => {
      if (progress) io.progress(`applying ${policies.compiled.length} policies to resource ${index + 1} of ${loaded.resources.length}`);
      const done = processResource(engine, policies.compiled, resource, request, existing);
      const origin = loaded.origins[index];
      batches.push({ index, ...(origin !== undefined ? { origin } : {}), responses: done.responses });
      if (!jsonEqual(done.patched, resource)) mutated.push({ why: "mutated", policy: lastMutator(done.responses), rule: "", resource: done.patched });
    });
    return { batches, mutated };
  });
  io.progressDone();
  const responses = batches.flatMap((b) => b.responses);
  const produced = dedupe([...mutated, ...producedResources(responses)]);
  const rows = resultRows(batches, values.value, options.auditWarn);
  renderResults(io, options, {
    rows, responses, produced,
    policies: policies.compiled.length,
    resources: loaded.resources.length,
    exceptions: exceptions.exceptions.length + policies.exceptions.length,
    nowMillis: engine.env.ports.clock.nowMillis(),
    cwd: process.cwd(),
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
  const counts = countResults(rows);
  return counts.fail > 0 || counts.error > 0 ? 1 : 0;
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

/**
 * The engine request for one resource and policy. Compiled exceptions ride on the request
 * (EngineRequest.exceptions); the engine decides which apply.
 */
function requestBuilder(values: ValuesSpec, userInfo: RequestUserInfo | undefined, exceptions: readonly CompiledException[]): (r: Resource, p: CompiledPolicy) => EngineRequest {
  return (resource, policy) => {
    const base = buildRequest(resource, policy, values, userInfo);
    return exceptions.length === 0 ? base : { ...base, exceptions };
  };
}

function usageFailure(io: Io, message: string): number {
  io.err(`error: ${message}`);
  return 2;
}

function lastMutator(responses: readonly PolicyResponse[]): string {
  const names = responses.filter((r) => r.rules.some((x) => x.type === "Mutation" && x.status === "pass")).map((r) => r.policy.name);
  return names.join(",");
}
