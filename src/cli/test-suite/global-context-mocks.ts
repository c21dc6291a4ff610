/**
 * A Test file's `globalContextEntries` (Kyverno's CLI `GlobalContextEntryValue`): offline data for
 * `globalReference` context entries and CEL `globalContext.Get`, shaped as the live entry is:
 * - the root is `data` (any JSON), or, for an entry backed by Kubernetes objects, the list of objects
 *   in `resources` (inline) and `resourceFiles` (files beside the test), as a kubernetesResource
 *   GlobalContextEntry holds them;
 * - `fieldPath` (JMESPath) is applied to the root first;
 * - with `projections` ({name, path}, each JMESPath on that root) the entry's value is only the map of
 *   projection names to their results (what CEL's `globalContext.Get(entry, projection)` and a
 *   `globalReference` with a `jmesPath` read), and `<entry>.<projection>` names one, as live entries
 *   are read (src/kube/global-context).
 * A malformed entry fails the suite naming it; a JMESPath that does not compile or fails on the data
 * makes the entry an error for the rules that read it, never a value.
 */
import { resolve } from "node:path";
import { isObject, type JsonObject, type JsonValue } from "../../engine/index.js";
import { loadPaths } from "../../platform/files/index.js";

export interface GlobalMock {
  readonly name: string;
  readonly root: JsonValue;
  readonly fieldPath?: string;
  readonly projections: readonly { readonly name: string; readonly path: string }[];
}

/** A JMESPath in Kyverno's dialect, compiled; throws on a bad expression or a failed search. */
type CompileJmespath = (expression: string) => (data: JsonValue) => JsonValue;

/** The entries, with their resourceFiles read (relative to `dir`); errors name the entry and field. */
export async function loadGlobalMocks(
  dir: string,
  entries: readonly JsonObject[],
): Promise<{ mocks: GlobalMock[]; errors: string[] }> {
  const mocks: GlobalMock[] = [];
  const errors: string[] = [];
  for (const [i, e] of entries.entries()) {
    const where = `globalContextEntries[${i}]`;
    const name = typeof e["name"] === "string" ? e["name"].trim() : "";
    if (name === "") {
      errors.push(`${where}: name is required`);
      continue;
    }
    const projections: { name: string; path: string }[] = [];
    for (const [j, p] of (Array.isArray(e["projections"]) ? e["projections"] : []).entries()) {
      const pname = isObject(p) && typeof p["name"] === "string" ? p["name"].trim() : "";
      const path = isObject(p) && typeof p["path"] === "string" ? p["path"].trim() : "";
      if (pname === "" || path === "")
        errors.push(`${where} (${name}): projections[${j}]: ${pname === "" ? "name" : "path"} is required`);
      else projections.push({ name: pname, path });
    }
    const files = Array.isArray(e["resourceFiles"])
      ? e["resourceFiles"].filter((f): f is string => typeof f === "string")
      : [];
    const inline = Array.isArray(e["resources"]) ? e["resources"] : undefined;
    const hasData = e["data"] !== undefined && e["data"] !== null;
    const sources = [hasData, inline !== undefined || files.length > 0].filter(Boolean).length;
    if (sources !== 1) {
      errors.push(
        `${where} (${name}): ${sources === 0 ? "data, resources or resourceFiles is required" : "give data, or resources/resourceFiles, not both"}`,
      );
      continue;
    }
    let root: JsonValue = e["data"] ?? null;
    if (!hasData) {
      const objects: JsonValue[] = [...(inline ?? [])];
      for (const d of files.length === 0 ? [] : await loadPaths(files.map((f) => resolve(dir, f)))) {
        if (d.error !== undefined) errors.push(`${where} (${name}): resourceFiles: ${d.error}`);
        else if (d.value !== undefined && d.value !== null) objects.push(d.value);
      }
      root = objects;
    }
    const fieldPath = typeof e["fieldPath"] === "string" && e["fieldPath"].trim() !== "" ? e["fieldPath"] : undefined;
    mocks.push({ name, root, ...(fieldPath !== undefined ? { fieldPath } : {}), projections });
  }
  return { mocks, errors };
}

/** Each entry's value (and `<entry>.<projection>` values), or why it has none. */
export function evaluateGlobalMocks(
  mocks: readonly GlobalMock[],
  compile: CompileJmespath,
): { values: Record<string, JsonValue>; errors: Record<string, string> } {
  const values: Record<string, JsonValue> = {};
  const errors: Record<string, string> = {};
  for (const m of mocks) {
    let step = "fieldPath";
    try {
      const root = m.fieldPath === undefined ? m.root : compile(m.fieldPath)(m.root);
      if (m.projections.length === 0) {
        values[m.name] = root;
        continue;
      }
      const projected: JsonObject = {};
      for (const p of m.projections) {
        step = `projection ${p.name}`;
        const v = compile(p.path)(root);
        projected[p.name] = v;
        values[`${m.name}.${p.name}`] = v;
      }
      values[m.name] = projected;
    } catch (e) {
      errors[m.name] = `the test's globalContextEntries ${m.name}: ${step}: ${(e as Error).message}`;
    }
  }
  return { values, errors };
}
