/**
 * Kind-name helpers autogen needs: which plain kind a `kinds[]` entry names (Kyverno
 * `GetKindFromGVK` + `SplitSubresource`), and the fully qualified kinds autogen writes.
 */
const VERSION = /^(v\d((alpha|beta)\d)?|\*)$/;

/** Pod controllers (and Pod) written fully qualified in generated rules; other names pass through. */
const QUALIFIED: Readonly<Record<string, string>> = {
  DaemonSet: "apps/v1/DaemonSet",
  Deployment: "apps/v1/Deployment",
  Job: "batch/v1/Job",
  StatefulSet: "apps/v1/StatefulSet",
  ReplicaSet: "apps/v1/ReplicaSet",
  ReplicationController: "v1/ReplicationController",
  CronJob: "batch/v1/CronJob",
  Pod: "v1/Pod",
};

/** The kind an entry of `kinds[]` names, without group, version or subresource. */
function kindNameOf(selector: string): string {
  const parts = selector.split("/");
  const [a = "", b = "", c = "", d = ""] = parts;
  let kind: string;
  switch (parts.length) {
    case 1:
      kind = dotToSlash(selector);
      break;
    case 2:
      if (a === "*" && b === "*") kind = "*/*";
      else if (VERSION.test(a)) kind = dotToSlash(b);
      else kind = `${a}/${b}`;
      break;
    case 3:
      kind = VERSION.test(a) ? `${b}/${c}` : dotToSlash(c);
      break;
    case 4:
      kind = `${c}/${d}`;
      break;
    default:
      kind = "";
  }
  const split = kind.split("/");
  return split.length === 2 ? (split[0] ?? "") : kind;
}

function dotToSlash(s: string): string {
  return s.replace(".", "/");
}

/** Whether any entry of `kinds` names `kind` (e.g. `Pod`, `v1/Pod`, `Pod/status` all name Pod). */
export function containsKind(kinds: readonly string[], kind: string): boolean {
  return kinds.some((k) => kindNameOf(k) === kind);
}

/** Write known controller kinds fully qualified (`Deployment` → `apps/v1/Deployment`). */
export function qualifyKinds(kinds: readonly string[]): string[] {
  return kinds.map((k) => (Object.prototype.hasOwnProperty.call(QUALIFIED, k) ? (QUALIFIED[k] ?? k) : k));
}
