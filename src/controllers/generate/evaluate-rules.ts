/**
 * The engine's generate for one UpdateRequest's trigger, as it is now: context entries and clone
 * sources are read from the API server (record and re-run, at most 8 rounds), and each rule of the
 * request gets its outcome.
 */
import {
  type AnyCompiledException,
  type CompiledPolicy,
  type ContextSources,
  createEngine,
  downstreamRuleLabel,
  type EngineRequest,
  isObject,
  type JsonObject,
  type Resource,
  type ResourceRead,
} from "../../engine/index.js";
import { ClusterReads } from "../../kube/cluster-reads.js";
import type { KubeClient } from "../../kube/kube-client.js";
import type { NamespaceFacts } from "../namespace-facts.js";
import { cryptoRandom, nodeHasher, nodeSignatures, systemClock } from "../../platform/node-ports.js";
import { offlineHosts } from "../../platform/offline-context.js";
import type { KindPaths } from "./kind-paths.js";
import { RecordedExisting } from "./recorded-existing.js";
import type { RuleOutcome } from "./reconcile.js";
import type { UpdateRequest } from "./update-request.js";

const MAX_ROUNDS = 8;

interface EvaluateInput extends NamespaceFacts {
  readonly client: KubeClient;
  readonly paths: KindPaths;
  readonly policy: CompiledPolicy;
  readonly ur: UpdateRequest;
  readonly trigger: Resource;
  /** The loaded PolicyExceptions: a GeneratingPolicy's policies.kyverno.io ones apply in the background too. */
  readonly exceptions?: readonly AnyCompiledException[];
  /** Each object a CEL expression read with `resource.Get` (a GeneratingPolicy's clone source), as it is read. */
  readonly onRead?: (read: ResourceRead) => void;
}

export function evaluateRules(input: EvaluateInput): Promise<RuleOutcome[]> {
  const reads = new ClusterReads(input.client);
  const existing = new RecordedExisting(input.client, input.paths, input.policy.namespace);
  const engine = createEngine({
    clock: systemClock,
    random: cryptoRandom,
    hasher: nodeHasher,
    context: recording(reads.sources(), input.onRead),
    hosts: offlineHosts,
    signatures: nodeSignatures,
  });
  const exceptions = input.policy.language === "generating" ? (input.exceptions ?? []) : [];
  const request: EngineRequest = { ...engineRequest(input), ...(exceptions.length > 0 ? { exceptions } : {}) };
  const run = () => engine.generate(input.policy, request, existing.port());
  return (async () => {
    let response = run();
    for (let round = 1; reads.pending + existing.pending > 0 && round <= MAX_ROUNDS; round++) {
      await Promise.all([reads.settle(), existing.settle()]);
      reads.finalRound(round === MAX_ROUNDS);
      response = run();
    }
    // A GeneratingPolicy has one body: its one result answers for its one rule context, whatever
    // either is named (a request written before its results were named by the policy says "").
    const generating = input.policy.language === "generating";
    return input.ur.rules.map((rc): RuleOutcome => {
      const result = generating ? response.rules[0] : response.rules.find((r) => r.rule === rc.rule);
      const base = {
        rule: rc.rule,
        downstreamLabel: downstreamRuleLabel(input.policy, rc.rule),
        synchronize: rc.synchronize,
        deleteDownstream: rc.deleteDownstream,
      };
      if (result === undefined) return { ...base, status: "unmatched", message: "", generated: [] };
      const status =
        result.status === "pass" ? "pass" : result.status === "skip" ? (generating ? "excepted" : "skip") : "error";
      return { ...base, status, message: result.message, generated: result.generated ?? [] };
    });
  })();
}

/** The cluster's context sources, each `resource.Get` also told to `onRead`. */
function recording(sources: ContextSources, onRead: ((read: ResourceRead) => void) | undefined): ContextSources {
  if (onRead === undefined || sources.getResource === undefined) return sources;
  const get = sources.getResource.bind(sources);
  return {
    ...sources,
    getResource: (r, caller) => {
      onRead(r);
      return get(r, caller);
    },
  };
}

/** The trigger as the engine sees it in the background: the request's user and admission request as stored on the UpdateRequest. */
export function engineRequest(
  input: Pick<EvaluateInput, "ur" | "trigger" | "namespaceLabels" | "namespaceObject">,
): EngineRequest {
  const u = input.ur.userInfo;
  const groups = Array.isArray(u["groups"]) ? u["groups"].filter((g): g is string => typeof g === "string") : [];
  const userInfo = {
    username: typeof u["username"] === "string" ? u["username"] : "",
    groups,
    roles: [],
    clusterRoles: [],
  };
  const operation = input.ur.operation === "UPDATE" ? "UPDATE" : "CREATE";
  const admission: JsonObject = input.ur.admissionRequest ?? {};
  const requestVars: JsonObject = { ...admission, operation, object: input.trigger };
  if (!isObject(admission["userInfo"])) requestVars["userInfo"] = u;
  return {
    resource: input.trigger,
    ...(operation === "UPDATE" && isObject(admission["oldObject"]) ? { oldResource: admission["oldObject"] } : {}),
    operation,
    userInfo,
    namespaceLabels: input.namespaceLabels,
    ...(input.namespaceObject !== undefined ? { namespaceObject: input.namespaceObject } : {}),
    variables: { request: requestVars },
  };
}
