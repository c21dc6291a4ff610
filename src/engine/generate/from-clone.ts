/**
 * `generate.clone` and `generate.cloneList`: copies of existing objects, renamed and moved by the
 * rule. Server-set metadata and `status` are dropped; `ownerReferences` are dropped when the copy
 * lands in another namespace (Kyverno keeps them for a copy in the source's own namespace).
 * Copying an object onto itself is skipped, as Kyverno does ("skip resource self-clone").
 */
import type { LabelSelector } from "../api/policy.js";
import {
  resourceApiVersion,
  resourceKind,
  resourceLabels,
  resourceName,
  resourceNamespace,
  type Resource,
} from "../api/resource.js";
import { err, ok, type Result } from "../api/result.js";
import { evaluateSelector } from "../match/label-selector.js";
import { copyWithout } from "./json-copy.js";
import { uidOf, type SourceInfo } from "./labels.js";
import { describeTarget, metadataOf, withIdentity, type TargetRef } from "./target.js";
import type { SourceRef } from "../api/generated-resource.js";
import type { CloneFrom, CloneListSpec, ExistingResources, GenerateSpec } from "./types.js";

export interface CloneOutcome {
  readonly resource: Resource;
  readonly source: SourceRef;
  readonly sourceInfo: SourceInfo;
}

const SERVER_SET = [
  "uid",
  "resourceVersion",
  "creationTimestamp",
  "generation",
  "managedFields",
  "selfLink",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
];
const NO_STATUS = new Set(["status"]);

/** A copy of `source` as the object `target`. */
function cloneInto(source: Resource, target: TargetRef): Resource {
  const drop = new Set(SERVER_SET);
  if (resourceNamespace(source) !== target.namespace) drop.add("ownerReferences");
  return withIdentity(target, copyWithout(metadataOf(source), drop), copyWithout(source, NO_STATUS));
}

export function cloneOne(
  spec: GenerateSpec,
  clone: CloneFrom,
  existing: ExistingResources,
  path: string,
): Result<CloneOutcome[]> {
  if (clone.name === "") {
    return err("generate-clone", "generate.clone.name is empty: name the source object to copy", `${path}.clone.name`);
  }
  const target: TargetRef = {
    apiVersion: spec.apiVersion,
    kind: spec.kind,
    name: spec.name,
    namespace: spec.namespace,
  };
  if (clone.namespace === spec.namespace && clone.name === spec.name) return ok([]);
  const ref: SourceRef = { apiVersion: spec.apiVersion, kind: spec.kind, namespace: clone.namespace, name: clone.name };
  const got = existing.get(ref.apiVersion, ref.kind, ref.namespace, ref.name);
  if (!got.ok) {
    return err(
      "generate-clone-source",
      `cannot read the clone source ${describeTarget(ref)}: ${got.error.message}`,
      `${path}.clone`,
    );
  }
  if (got.value === undefined) {
    return err(
      "generate-clone-source",
      `source ${describeTarget(ref)} not found; supply it (bylaw apply -t/--target-resource FILE; cloneSourceResource or clusterResources in a kyverno test; or create it in the cluster) or fix generate.clone`,
      `${path}.clone`,
    );
  }
  return ok([outcome(got.value, ref, target)]);
}

export function cloneList(
  spec: GenerateSpec,
  list: CloneListSpec,
  existing: ExistingResources,
  path: string,
): Result<CloneOutcome[]> {
  const out: CloneOutcome[] = [];
  for (const [i, entry] of list.kinds.entries()) {
    const at = `${path}.cloneList.kinds[${i}]`;
    const slash = entry.lastIndexOf("/");
    const apiVersion = slash < 0 ? "" : entry.slice(0, slash);
    const kind = entry.slice(slash + 1);
    if (kind === "")
      return err(
        "generate-clone-list",
        `cloneList kind "${entry}" names no kind; write it as [group/]version/Kind, e.g. v1/Secret`,
        at,
      );
    const listed = existing.list(apiVersion, kind, list.namespace, list.selector);
    if (!listed.ok)
      return err(
        "generate-clone-source",
        `cannot list ${kind} in namespace "${list.namespace}": ${listed.error.message}`,
        at,
      );
    const picked = select(listed.value, {
      apiVersion,
      kind,
      namespace: list.namespace,
      selector: list.selector,
      path: `${path}.cloneList.selector`,
    });
    if (!picked.ok) return picked;
    for (const source of picked.value) {
      if (list.namespace === spec.namespace) continue;
      const ref: SourceRef = {
        apiVersion: resourceApiVersion(source) || apiVersion,
        kind,
        namespace: list.namespace,
        name: resourceName(source),
      };
      out.push(outcome(source, ref, { apiVersion: ref.apiVersion, kind, name: ref.name, namespace: spec.namespace }));
    }
  }
  return ok(out);
}

/** The listed objects that really fit (an ExistingResources may ignore the filters), by name. */
function select(
  items: readonly Resource[],
  wanted: {
    readonly apiVersion: string;
    readonly kind: string;
    readonly namespace: string;
    readonly selector: LabelSelector | undefined;
    /** Where the selector is, for its error message. */
    readonly path: string;
  },
): Result<Resource[]> {
  const { apiVersion, kind, namespace, selector, path } = wanted;
  const out: Resource[] = [];
  for (const r of items) {
    if (resourceKind(r) !== kind || resourceNamespace(r) !== namespace) continue;
    if (apiVersion !== "" && resourceApiVersion(r) !== "" && resourceApiVersion(r) !== apiVersion) continue;
    if (selector !== undefined) {
      const s = evaluateSelector(selector, resourceLabels(r));
      if (!s.ok) return err("generate-clone-list", `invalid cloneList selector: ${s.error}`, path);
      if (!s.matched) continue;
    }
    out.push(r);
  }
  out.sort((a, b) => (resourceName(a) < resourceName(b) ? -1 : resourceName(a) > resourceName(b) ? 1 : 0));
  return ok(out);
}

function outcome(source: Resource, ref: SourceRef, target: TargetRef): CloneOutcome {
  return {
    resource: cloneInto(source, target),
    source: ref,
    sourceInfo: {
      apiVersion: resourceApiVersion(source) || ref.apiVersion,
      kind: resourceKind(source) || ref.kind,
      namespace: ref.namespace,
      uid: uidOf(source),
    },
  };
}
