/**
 * What `/api/policy?name=…` answers for the policy page: every policy object a report row's policy
 * name may stand for (`name` for a cluster-wide kind, `namespace/name` for a namespaced one), of each
 * kind in the engine's registry the API server serves, read with the viewer's token; for each its
 * status conditions and its text as YAML (managedFields and the last-applied annotation left out).
 * A kind the viewer may not get is named as such, never as "no such policy".
 */
import { POLICY_KINDS, type JsonValue } from "../engine/index.js";
import type { ViewerReads } from "../kube/viewer-reads.js";
import { writeYaml } from "../platform/yaml/index.js";
import { obj, str } from "./report-rows.js";

/** The version each policy API group is read at (Kyverno 1.19's CRDs' storage versions). */
const GROUP_VERSIONS: Readonly<Record<string, string>> = {
  "kyverno.io": "v1",
  "policies.kyverno.io": "v1beta1",
  "admissionregistration.k8s.io": "v1",
};

/** A DNS-1123 name (a namespace or a policy's name); nothing else goes into a path. */
export const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  readonly message: string;
  readonly lastTransitionTime: string;
}

interface FoundPolicy {
  readonly kind: string;
  readonly apiVersion: string;
  readonly namespace: string;
  readonly name: string;
  readonly conditions: readonly Condition[];
  readonly yaml: string;
}

interface KindState {
  readonly kind: string;
  /** found, absent (no such object or kind), forbidden (the viewer may not get it) or failed. */
  readonly state: "found" | "absent" | "forbidden" | "failed";
  readonly message: string;
}

export type PolicyAnswer =
  | { readonly ok: true; readonly policies: readonly FoundPolicy[]; readonly kinds: readonly KindState[] }
  | { readonly ok: false; readonly status: number; readonly error: string };

/** The policy objects `rowName` names, read as the bearer of `token`. */
export async function readPolicy(reads: ViewerReads, token: string, rowName: string): Promise<PolicyAnswer> {
  const found = await policyObjects(reads, token, rowName);
  if (!found.ok) return found;
  return { ok: true, policies: found.objects.map(foundPolicy), kinds: found.kinds };
}

type ObjectsAnswer =
  | { readonly ok: true; readonly objects: readonly unknown[]; readonly kinds: readonly KindState[] }
  | { readonly ok: false; readonly status: number; readonly error: string };

/** The policy objects `rowName` names, as the API server gives them to the bearer of `token`. */
export async function policyObjects(reads: ViewerReads, token: string, rowName: string): Promise<ObjectsAnswer> {
  const slash = rowName.indexOf("/");
  const namespace = slash === -1 ? "" : rowName.slice(0, slash);
  const name = slash === -1 ? rowName : rowName.slice(slash + 1);
  if (!NAME.test(name) || (namespace !== "" && !NAME.test(namespace)))
    return { ok: false, status: 400, error: `not a policy name: ${JSON.stringify(rowName)}` };
  // Cleanup kinds write no report results: a row never names one.
  const kinds = POLICY_KINDS.filter(
    (k) =>
      GROUP_VERSIONS[k.group] !== undefined &&
      !k.phases.includes("delete") &&
      (k.scope === "namespaced") === (namespace !== ""),
  );
  const answers = await Promise.all(
    kinds.map((k) => {
      const apiVersion = `${k.group}/${GROUP_VERSIONS[k.group] ?? ""}`;
      const where = namespace === "" ? "" : `/namespaces/${namespace}`;
      return reads.get(token, `/apis/${apiVersion}${where}/${k.resource}/${name}`);
    }),
  );
  if (answers.some((a) => !a.ok && a.status === 401))
    return { ok: false, status: 401, error: "the API server did not accept this token" };
  const objects: unknown[] = [];
  const states: KindState[] = [];
  answers.forEach((a, i) => {
    const kind = kinds[i]?.kind ?? "";
    if (a.ok) {
      objects.push(a.body);
      states.push({ kind, state: "found", message: "" });
    } else
      states.push({
        kind,
        state: a.status === 404 ? "absent" : a.status === 403 ? "forbidden" : "failed",
        message: a.message,
      });
  });
  return { ok: true, objects, kinds: states };
}

type Obj = Readonly<Record<string, unknown>>;

function foundPolicy(body: unknown): FoundPolicy {
  const doc = obj(body);
  const meta = obj(doc["metadata"]);
  const conditions = obj(doc["status"])["conditions"];
  return {
    kind: str(doc["kind"]),
    apiVersion: str(doc["apiVersion"]),
    namespace: str(meta["namespace"]),
    name: str(meta["name"]),
    conditions: (Array.isArray(conditions) ? conditions : []).map((c) => {
      const o = obj(c);
      return {
        type: str(o["type"]),
        status: str(o["status"]),
        reason: str(o["reason"]),
        message: str(o["message"]),
        lastTransitionTime: str(o["lastTransitionTime"]),
      };
    }),
    yaml: writeYaml(withoutNoise(doc) as JsonValue),
  };
}

const NOISE_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration";

/** The object as its author wrote it, plus its status: no managedFields, no last-applied copy of itself. */
function withoutNoise(doc: Obj): Obj {
  const meta = { ...obj(doc["metadata"]) };
  delete meta["managedFields"];
  const annotations = { ...obj(meta["annotations"]) };
  if (NOISE_ANNOTATION in annotations) {
    delete annotations[NOISE_ANNOTATION];
    if (Object.keys(annotations).length === 0) delete meta["annotations"];
    else meta["annotations"] = annotations;
  }
  return { ...doc, metadata: meta };
}
