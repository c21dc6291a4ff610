/**
 * One UpdateRequest, run: read the trigger and the policy, evaluate, read what exists at each
 * target and each rule's labelled downstream, reconcile (reconcile.ts), and make the writes. The
 * answer is what the request's status becomes; a write the API server refuses is named in it.
 */
import {
  kyvernoCompiledRules,
  type AnyCompiledException,
  type CompiledPolicy,
  downstreamRuleLabel,
  isObject,
  type Resource,
  type ResourceRead,
  resourceApiVersion,
  resourceKind,
  resourceName,
  resourceNamespace,
} from "../../engine/index.js";
import { describeKubeError } from "../../kube/cluster-reads.js";
import { KubeError, type KubeClient } from "../../kube/kube-client.js";
import { evaluateRules } from "./evaluate-rules.js";
import { triggerPending, unstoredUpdate, UPDATE_WAIT_TRIES } from "./trigger-pending.js";
import { readNamespaceFacts } from "../namespace-facts.js";
import type { KindPaths } from "./kind-paths.js";
import { type Action, reconcile, type Reconciled, ruleLabel, type RuleOutcome } from "./reconcile.js";
import type { ResourceSpec, UpdateRequest } from "./update-request.js";

interface RunDeps {
  readonly client: KubeClient;
  readonly paths: KindPaths;
  readonly policies: () => readonly CompiledPolicy[];
  readonly exceptions?: () => readonly AnyCompiledException[];
}

export interface RunOutcome {
  readonly state: "Completed" | "Failed";
  readonly message: string;
  readonly generated: readonly ResourceSpec[];
  /** A failure worth retrying (the API server did not answer, a conflict), not one the policy causes. */
  readonly transient: boolean;
  /** The objects the evaluation read with `resource.Get` (a GeneratingPolicy's clone sources). */
  readonly sources?: readonly ResourceRead[];
  /** The resourceVersions of the objects this run created or updated. */
  readonly written?: readonly string[];
}

export function policyKeyOf(p: CompiledPolicy): string {
  return p.namespace !== "" ? `${p.namespace}/${p.name}` : p.name;
}

export async function getOrMissing(client: KubeClient, path: string): Promise<Resource | undefined> {
  try {
    return (await client.getJson(path)) as Resource;
  } catch (e) {
    if (e instanceof KubeError && e.status === 404) return undefined;
    throw e;
  }
}

export async function runUpdateRequest(ur: UpdateRequest, deps: RunDeps): Promise<RunOutcome> {
  const policy = deps.policies().find((p) => policyKeyOf(p) === ur.policy);
  const trigger = await readTrigger(ur, deps);
  const triggerGone = trigger === undefined || (ur.trigger.uid !== "" && uidOf(trigger) !== ur.trigger.uid);
  // The webhook writes the request while the API server is still admitting the trigger: one a
  // CREATE or UPDATE names that is not stored (yet) fails, to be looked for again with the
  // controller's backoff, as Kyverno's background controller does; never "gone", which would
  // complete the request with nothing generated.
  const generates = ur.operation !== "DELETE" && ur.rules.some((r) => !r.deleteDownstream);
  if (triggerGone && policy !== undefined && generates) {
    const served = (await deps.paths.resolve(ur.trigger.apiVersion, ur.trigger.kind)) !== undefined;
    return triggerPending(ur, { policy, served });
  }
  const updateAt = trigger !== undefined && ur.retryCount < UPDATE_WAIT_TRIES ? unstoredUpdate(ur, trigger) : undefined;
  if (updateAt !== undefined && policy !== undefined && generates)
    return triggerPending(ur, { policy, served: true, updateAt });
  let outcomes: RuleOutcome[] = ur.rules.map((rc) => ({
    ...rc,
    downstreamLabel: downstreamRuleLabel(policy, rc.rule),
    status: "unmatched",
    message: "",
    generated: [],
  }));
  const sources = new Map<string, ResourceRead>();
  if (policy !== undefined && trigger !== undefined && !triggerGone && ur.rules.some((r) => !r.deleteDownstream))
    outcomes = await evaluateRules({
      onRead: (r) => sources.set(JSON.stringify([r.apiVersion, r.resource, r.namespace, r.name]), r),
      client: deps.client,
      paths: deps.paths,
      policy,
      ur,
      trigger,
      ...(await readNamespaceFacts(deps.client, ur.trigger.namespace)),
      ...(deps.exceptions !== undefined ? { exceptions: deps.exceptions() } : {}),
    });
  const current = await currentObjects({
    deps,
    policy,
    ur,
    outcomes,
    kinds: await generatingKinds({ deps, policy, ur, outcomes }),
  });
  const decided = reconcile({
    policy:
      policy === undefined
        ? "missing"
        : { key: ur.policy, namespace: policy.namespace !== "" ? policy.namespace : undefined },
    policyKey: ur.policy,
    ...(policy?.language === "generating" ? { policyKind: policy.kind } : {}),
    triggerGone,
    rules: outcomes,
    current,
    namespaced: (v, k) => deps.paths.namespaced(v, k),
  });
  return { ...(await apply(decided, deps)), sources: [...sources.values()] };
}

/** The trigger as it is now; one named only by uid (a generated object's labels) is found among its kind's objects. */
async function readTrigger(ur: UpdateRequest, deps: RunDeps): Promise<Resource | undefined> {
  const t = ur.trigger;
  const where = await deps.paths.resolve(t.apiVersion, t.kind);
  if (where === undefined) return undefined;
  if (t.name !== "") return getOrMissing(deps.client, where.object(t.namespace, t.name));
  const list = (await deps.client.getJson(where.collection(t.namespace))) as { items?: Resource[] };
  const found = (list.items ?? []).find((i) => uidOf(i) === t.uid);
  return found === undefined ? undefined : { ...found, apiVersion: t.apiVersion, kind: t.kind };
}

function uidOf(r: Resource): string {
  const meta = isObject(r["metadata"]) ? r["metadata"] : {};
  return typeof meta["uid"] === "string" ? meta["uid"] : "";
}

/** The kinds a policy's generate rules write, as written (`apiVersion`, `kind`; cloneList kinds; foreach entries). */
export function writtenKinds(
  policy: CompiledPolicy | undefined,
  rules: readonly string[],
): { apiVersion: string; kind: string }[] {
  const out: { apiVersion: string; kind: string }[] = [];
  for (const compiled of policy === undefined ? [] : kyvernoCompiledRules(policy)) {
    const g = compiled.rule.generate;
    if (!isObject(g) || !rules.includes(compiled.name)) continue;
    for (const block of [g, ...(Array.isArray(g["foreach"]) ? g["foreach"].filter(isObject) : [])]) {
      if (typeof block["kind"] === "string") {
        const apiVersion = typeof block["apiVersion"] === "string" ? block["apiVersion"] : "";
        out.push({ apiVersion, kind: block["kind"] });
      }
      const list = isObject(block["cloneList"]) ? block["cloneList"]["kinds"] : undefined;
      for (const k of Array.isArray(list) ? list : []) {
        if (typeof k !== "string") continue;
        const at = k.lastIndexOf("/");
        out.push({ apiVersion: at === -1 ? "" : k.slice(0, at), kind: k.slice(at + 1) });
      }
    }
  }
  return out.filter((k) => !k.kind.includes("{{") && !k.apiVersion.includes("{{"));
}

interface CurrentInput {
  readonly deps: RunDeps;
  readonly policy: CompiledPolicy | undefined;
  readonly ur: UpdateRequest;
  readonly outcomes: readonly RuleOutcome[];
  /** More kinds its downstream may be of (a GeneratingPolicy's, which no rule names). */
  readonly kinds?: readonly { apiVersion: string; kind: string }[];
}

/**
 * The kinds a GeneratingPolicy's downstream of this trigger is of, when it was not evaluated now
 * (its trigger deleted): it is evaluated for the trigger as the review last showed it (the stored
 * admission request's oldObject, else object). None for the other kinds, or when nothing is known.
 */
async function generatingKinds(input: Omit<CurrentInput, "kinds">): Promise<{ apiVersion: string; kind: string }[]> {
  const { deps, policy, ur, outcomes } = input;
  if (policy?.language !== "generating" || outcomes.some((o) => o.generated.length > 0)) return [];
  const admission = ur.admissionRequest ?? {};
  const last = isObject(admission["oldObject"]) ? admission["oldObject"] : admission["object"];
  if (!isObject(last)) return [];
  const evaluated = await evaluateRules({
    client: deps.client,
    paths: deps.paths,
    policy,
    ur: { ...ur, operation: "CREATE", rules: ur.rules.map((r) => ({ ...r, deleteDownstream: false })) },
    trigger: last,
    ...(await readNamespaceFacts(deps.client, ur.trigger.namespace)),
  });
  return evaluated.flatMap((o) =>
    o.generated.map((g) => ({ apiVersion: resourceApiVersion(g.toApply), kind: resourceKind(g.toApply) })),
  );
}

/** The objects at every generated target, and the downstream labelled with this policy and trigger. */
async function currentObjects(input: CurrentInput): Promise<Resource[]> {
  const { deps, ur, outcomes } = input;
  const out: Resource[] = [];
  const targets = outcomes.flatMap((o) => o.generated.map((g) => g.toApply));
  const own = input.policy?.namespace ?? "";
  for (const t of targets) {
    const where = await deps.paths.resolve(resourceApiVersion(t), resourceKind(t));
    if (where === undefined) continue;
    // A namespaced policy's target outside its namespace is not even read: reconcile refuses it (tenant rule 1).
    if (own !== "" && (!where.resource.namespaced || resourceNamespace(t) !== own)) continue;
    const got = await getOrMissing(deps.client, where.object(resourceNamespace(t), resourceName(t)));
    if (got !== undefined) out.push({ ...got, apiVersion: resourceApiVersion(t), kind: resourceKind(t) });
  }
  const name = ur.policy.slice(ur.policy.indexOf("/") + 1).slice(0, 63);
  const selector = `generate.kyverno.io/policy-name=${name},generate.kyverno.io/trigger-uid=${ur.trigger.uid}`;
  if (ur.trigger.uid === "") return out;
  const kinds = [
    ...writtenKinds(
      input.policy,
      ur.rules.map((r) => r.rule),
    ),
    ...targets.map((t) => ({ apiVersion: resourceApiVersion(t), kind: resourceKind(t) })),
    ...(input.kinds ?? []),
  ];
  const seen = new Set<string>();
  for (const k of kinds) {
    const where = await deps.paths.resolve(k.apiVersion, k.kind);
    if (where === undefined || seen.has(where.collection(""))) continue;
    seen.add(where.collection(""));
    // A namespaced policy's downstream is in its namespace only (a cluster-scoped kind: none of it).
    if (own !== "" && !where.resource.namespaced) continue;
    const apiVersion =
      where.resource.group === "" ? where.resource.version : `${where.resource.group}/${where.resource.version}`;
    const list = (await deps.client.getJson(
      `${where.collection(own)}?labelSelector=${encodeURIComponent(selector)}`,
    )) as {
      items?: Resource[];
    };
    for (const item of list.items ?? []) {
      const r = { ...item, apiVersion, kind: where.resource.kind };
      if (!out.some((o) => sameObject(o, r))) out.push(r);
    }
  }
  return out;
}

const sameObject = (a: Resource, b: Resource): boolean =>
  resourceKind(a) === resourceKind(b) &&
  resourceNamespace(a) === resourceNamespace(b) &&
  resourceName(a) === resourceName(b);

async function apply(decided: Reconciled, deps: RunDeps): Promise<RunOutcome> {
  const problems: string[] = [];
  const written: string[] = [];
  let transient = false;
  for (const action of decided.actions) {
    try {
      const rv = await write(action, deps);
      if (rv !== undefined) written.push(rv);
    } catch (e) {
      const refused = e instanceof KubeError && e.status === 403;
      if (!refused) transient = true;
      problems.push(writeProblem(action, e));
    }
  }
  const messages = [decided.message, ...problems].filter((m) => m !== "");
  return {
    state: decided.state === "Failed" || problems.length > 0 ? "Failed" : "Completed",
    message: messages.join("; "),
    generated: decided.generated,
    transient,
    written,
  };
}

const VERB = { create: "create", update: "update", delete: "delete" } as const;

function describeTarget(action: Action): string {
  const t =
    action.type === "delete"
      ? action.target
      : {
          kind: resourceKind(action.resource),
          namespace: resourceNamespace(action.resource),
          name: resourceName(action.resource),
        };
  return `${t.kind} ${t.namespace === "" ? "" : `${t.namespace}/`}${t.name}`;
}

function writeProblem(action: Action, e: unknown): string {
  const what = `${ruleLabel(action.rule)}failed to ${VERB[action.type]} ${describeTarget(action)}: ${describeKubeError(e)}`;
  if (e instanceof KubeError && e.status === 403)
    return `${what} (Bylaw's ServiceAccount may not ${VERB[action.type]} it: grant the verb in a ClusterRole labelled rbac.kyverno.io/aggregate-to-background-controller: "true")`;
  return what;
}

/** Makes one write; answers the written object's resourceVersion (none for a delete). */
async function write(action: Action, deps: RunDeps): Promise<string | undefined> {
  if (action.type === "delete") {
    const t = action.target;
    const where = await deps.paths.resolve(t.apiVersion, t.kind);
    if (where === undefined) return;
    try {
      await deps.client.sendJson("DELETE", where.object(t.namespace, t.name), { propagationPolicy: "Background" });
    } catch (e) {
      if (!(e instanceof KubeError && e.status === 404)) throw e;
    }
    return;
  }
  const r = action.resource;
  const where = await deps.paths.resolve(resourceApiVersion(r), resourceKind(r));
  if (where === undefined) throw new Error(`the cluster serves no ${resourceApiVersion(r)} ${resourceKind(r)}`);
  const answer =
    action.type === "create"
      ? await deps.client.sendJson("POST", where.collection(resourceNamespace(r)), r)
      : await deps.client.sendJson("PUT", where.object(resourceNamespace(r), resourceName(r)), r);
  const meta = isObject(answer) && isObject(answer["metadata"]) ? answer["metadata"] : {};
  return typeof meta["resourceVersion"] === "string" ? meta["resourceVersion"] : undefined;
}
