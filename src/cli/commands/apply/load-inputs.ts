/** Read what `bylaw apply` checks: resources (with the file and line each came from), targets, values, user info. */
import { isObject, type RequestUserInfo, type Resource } from "../../../engine/index.js";
import { loadPaths } from "../../../platform/files/index.js";
import type { ResourceOrigin } from "../../output/types.js";
import { parseUserInfo } from "../../test-suite/userinfo-file.js";
import { EMPTY_VALUES, parseValues, type ValuesSpec } from "../../../platform/offline-values/values-file.js";
import { parseSetValues } from "../../offline/set-values.js";
import { inDefaultNamespace } from "../../../platform/default-namespace.js";
import { expandList } from "../../../platform/expand-list.js";
import { crdScopes, type CrdKinds } from "../../offline/crd-kinds.js";

interface LoadedResources {
  readonly resources: Resource[];
  /** origins[i] is where resources[i] was read. */
  readonly origins: ResourceOrigin[];
  readonly errors: string[];
  readonly warnings: string[];
}

interface LoadResourcesOptions {
  readonly stdin: () => Promise<string>;
  /** Before each error, e.g. `--target-resource: `. */
  readonly label?: string;
  /** The CRDs given: a custom kind with `scope: Cluster` gets no namespace. */
  readonly crds?: CrdKinds;
}

/**
 * The manifests at `paths`. One without `metadata.namespace` is in `default` unless its kind is
 * cluster-scoped, as Kyverno's CLI loads resource files and as `bylaw test` does
 * (platform/default-namespace.ts).
 */
export async function loadResources(paths: readonly string[], options: LoadResourcesOptions): Promise<LoadedResources> {
  const { stdin, label = "", crds } = options;
  const out: LoadedResources = { resources: [], origins: [], errors: [], warnings: [] };
  for (const d of await loadPaths(paths, { stdin })) {
    if (d.error !== undefined) {
      out.errors.push(`${label}${d.error}`);
    } else if (isObject(d.value) && typeof d.value["kind"] === "string") {
      for (const r of expandList(d.value)) {
        out.resources.push(inDefaultNamespace(r, crdScopes(crds)));
        out.origins.push({ source: d.source, ...(d.line !== undefined ? { line: d.line } : {}) });
      }
    } else if (d.value !== undefined) {
      out.warnings.push(`${d.source}: document ${d.index + 1}: skipped: not a Kubernetes object (no kind)`);
    }
  }
  return out;
}

type Loaded<T> = { ok: true; value: T; warnings: string[] } | { ok: false; error: string };

/** The values file (if any) and the `--set` pairs, which apply after the file's global and resource values. */
export async function loadValuesFile(
  path: string | undefined,
  set: readonly string[] = [],
): Promise<Loaded<ValuesSpec>> {
  const pairs = parseSetValues(set);
  if (!pairs.ok) return { ok: false, error: pairs.error };
  const withSet = (v: ValuesSpec): ValuesSpec => (set.length > 0 ? { ...v, setValues: pairs.values } : v);
  if (path === undefined) return { ok: true, value: withSet(EMPTY_VALUES), warnings: pairs.warnings };
  const doc = (await loadPaths([path])).find((d) => d.value !== undefined || d.error !== undefined);
  if (!doc || doc.value === undefined) return { ok: false, error: `--values-file: ${doc?.error ?? "empty file"}` };
  const pv = parseValues(doc.value);
  if (pv.errors.length > 0) return { ok: false, error: `--values-file: ${path}: ${pv.errors.join("; ")}` };
  return {
    ok: true,
    value: withSet(pv.values),
    warnings: [...pv.warnings.map((w) => `${path}: ${w}`), ...pairs.warnings],
  };
}

export async function loadUserInfo(path: string | undefined): Promise<Loaded<RequestUserInfo | undefined>> {
  if (path === undefined) return { ok: true, value: undefined, warnings: [] };
  const doc = (await loadPaths([path])).find((d) => d.value !== undefined || d.error !== undefined);
  const pu =
    doc?.value !== undefined ? parseUserInfo(doc.value) : { ok: false as const, error: doc?.error ?? "empty file" };
  if (!pu.ok) return { ok: false, error: `--userinfo: ${pu.error}` };
  return { ok: true, value: pu.userInfo, warnings: [] };
}
