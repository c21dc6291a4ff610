/**
 * `GET /api/explain`: the report UI's "why" panel for one result (issue 38 §2). The policy, the
 * resource and its namespace are read with the viewer's token and nothing else; the policy is
 * compiled and evaluated again now, as a background scan evaluates it (no user info), by an engine
 * that reads nothing from the cluster with Bylaw's rights: a context entry that needs the cluster is
 * an error naming it, so the panel can never show what the viewer could not read. Then
 * engine.explain says how each rule's result came about. The caller runs one at a time.
 */
import {
  type Engine,
  type EngineRequest,
  explanationText,
  type JsonObject,
  type PolicyExplanation,
} from "../engine/index.js";
import type { ViewerReads } from "../kube/viewer-reads.js";
import { NAME, policyObjects } from "./policy-details.js";
import { obj } from "./report-rows.js";

interface ExplainDeps {
  readonly reads: ViewerReads;
  /** An engine without cluster reads (its context ports answer nothing from the cluster). */
  readonly engine: Engine;
}

type ExplainAnswer =
  | {
      readonly ok: true;
      readonly explanations: readonly PolicyExplanation[];
      /** The explanations as `bylaw apply --explain` prints them. */
      readonly text: string;
      /** What this evaluation could not do as the cluster's did (labels not readable, a policy that did not compile). */
      readonly notes: readonly string[];
    }
  | { readonly ok: false; readonly status: number; readonly error: string };

const KIND = /^[A-Z][A-Za-z0-9]{0,62}$/;
const API_VERSION = /^(?:[a-z0-9][a-z0-9.-]{0,252}\/)?v[0-9][a-z0-9]{0,20}$/;

/** `?policy=NAME&apiVersion=V&kind=K&namespace=NS&name=N`: one report row's policy and resource. */
export async function explainResult(deps: ExplainDeps, token: string, query: URLSearchParams): Promise<ExplainAnswer> {
  const target = targetOf(query);
  if (!target.ok) return target;
  const { reads } = deps;
  const found = await policyObjects(reads, token, query.get("policy") ?? "");
  if (!found.ok) return found;
  if (found.objects.length === 0)
    return { ok: false, status: 404, error: `no policy ${JSON.stringify(query.get("policy"))} that you may read` };
  const resource = await readResource(reads, token, target);
  if (!resource.ok) return resource;
  const notes: string[] = [];
  const namespaceLabels = await labelsOf(reads, token, target.namespace, notes);
  const request: EngineRequest = { resource: resource.object, operation: "CREATE", namespaceLabels, background: true };
  const explanations: PolicyExplanation[] = [];
  for (const doc of found.objects) {
    const compiled = deps.engine.compile(obj(doc) as JsonObject);
    if (!compiled.ok) {
      notes.push(
        `the policy did not compile here: ${compiled.problems.map((p) => `${p.path}: ${p.message}`).join("; ")}`,
      );
      continue;
    }
    const response = deps.engine.validate(compiled.policy, request);
    explanations.push(deps.engine.explain(compiled.policy, request, response.rules));
  }
  notes.push(
    "evaluated again now, as a background scan (no user info); context entries that read the cluster are not read for this panel",
  );
  return { ok: true, explanations, text: explanationText(explanations), notes };
}

interface Target {
  readonly ok: true;
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

function targetOf(query: URLSearchParams): Target | { ok: false; status: number; error: string } {
  const apiVersion = query.get("apiVersion") ?? "";
  const kind = query.get("kind") ?? "";
  const namespace = query.get("namespace") ?? "";
  const name = query.get("name") ?? "";
  if (!API_VERSION.test(apiVersion)) return bad(`not an apiVersion: ${JSON.stringify(apiVersion)}`);
  if (!KIND.test(kind)) return bad(`not a kind: ${JSON.stringify(kind)}`);
  if (!NAME.test(name)) return bad(`not a resource name: ${JSON.stringify(name)}`);
  if (namespace !== "" && !NAME.test(namespace)) return bad(`not a namespace: ${JSON.stringify(namespace)}`);
  return { ok: true, apiVersion, kind, namespace, name };
}

function bad(error: string): { ok: false; status: number; error: string } {
  return { ok: false, status: 400, error };
}

/** The resource, found through its group version's discovery document, both read with the viewer's token. */
async function readResource(
  reads: ViewerReads,
  token: string,
  t: Target,
): Promise<{ ok: true; object: JsonObject } | { ok: false; status: number; error: string }> {
  const prefix = t.apiVersion.includes("/") ? `/apis/${t.apiVersion}` : `/api/${t.apiVersion}`;
  const discovery = await reads.get(token, prefix);
  if (!discovery.ok) return refused(discovery, `the API server's list of ${t.apiVersion} resources`);
  const resources = obj(discovery.body)["resources"];
  const plural = (Array.isArray(resources) ? resources : [])
    .map(obj)
    .find((r) => r["kind"] === t.kind && typeof r["name"] === "string" && !r["name"].includes("/"))?.["name"];
  if (typeof plural !== "string")
    return { ok: false, status: 404, error: `the API server serves no kind ${t.kind} in ${t.apiVersion}` };
  const where = t.namespace === "" ? "" : `/namespaces/${t.namespace}`;
  const got = await reads.get(token, `${prefix}${where}/${plural}/${t.name}`);
  if (!got.ok) return refused(got, `${t.kind} ${t.namespace === "" ? "" : `${t.namespace}/`}${t.name}`);
  return { ok: true, object: obj(got.body) as JsonObject };
}

function refused(a: { status: number; message: string }, what: string): { ok: false; status: number; error: string } {
  if (a.status === 401) return { ok: false, status: 401, error: "the API server did not accept this token" };
  const status = a.status === 403 || a.status === 404 ? a.status : 502;
  return { ok: false, status, error: `${what}: ${a.message}` };
}

/** The namespace's labels for namespaceSelector, when the viewer may read the Namespace; else none, said in `notes`. */
async function labelsOf(
  reads: ViewerReads,
  token: string,
  namespace: string,
  notes: string[],
): Promise<Readonly<Record<string, string>>> {
  if (namespace === "") return {};
  const got = await reads.get(token, `/api/v1/namespaces/${namespace}`);
  if (!got.ok) {
    notes.push(`the labels of namespace ${namespace} were not read (${got.message}): a namespaceSelector saw none`);
    return {};
  }
  const labels = obj(obj(obj(got.body)["metadata"])["labels"]);
  return Object.fromEntries(Object.entries(labels).filter((e): e is [string, string] => typeof e[1] === "string"));
}
