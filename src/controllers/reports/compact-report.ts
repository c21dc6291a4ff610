/**
 * What the reports informer keeps of each report (issue 35, RSS): only what the scan decides a write
 * with (reconcile.ts compares the content, keeps admission rows, updates at the resourceVersion read)
 * and what the sweep reads (name, scope). Everything else the server stores (uid, creationTimestamp,
 * generation, annotations, managedFields) is dropped, and the parts repeated across reports (the
 * result rows, the summary, the labels) are interned: one frozen object per distinct JSON, shared by
 * every report that has it. 10,000 Pods under the same 19 policies have a few dozen distinct rows
 * per second of scan, where each report used to hold its own 19 parsed rows.
 *
 * The interned objects are frozen (a writer that tried to change a shared row would throw) and held
 * weakly: a row no cached report has any more is collected, and its table entry with it.
 */
import type { JsonObject, JsonValue } from "../../engine/index.js";
import type { KubeObject } from "../../kube/types.js";

class Interner {
  private readonly table = new Map<string, WeakRef<JsonObject>>();
  private readonly cleanup = new FinalizationRegistry<string>((key) => {
    if (this.table.get(key)?.deref() === undefined) this.table.delete(key);
  });

  /** The shared frozen copy of `value` (by its JSON). */
  intern(value: JsonObject): JsonObject {
    const key = JSON.stringify(value);
    const held = this.table.get(key)?.deref();
    if (held !== undefined) return held;
    const frozen = deepFreeze(value);
    this.table.set(key, new WeakRef(frozen));
    this.cleanup.register(frozen, key);
    return frozen;
  }

  get size(): number {
    return this.table.size;
  }
}

const shared = new Interner();

/** The distinct objects interned and not yet collected (for tests). */
export function internedCount(): number {
  return shared.size;
}

/** The report as the scan needs it: identity, resourceVersion, labels, owners, scope, summary and rows (shared). */
export function compactReport(report: KubeObject): KubeObject {
  const r = report as JsonObject;
  const meta = (r["metadata"] ?? {}) as JsonObject;
  const out: JsonObject = { metadata: compactMetadata(meta) };
  if (typeof r["kind"] === "string") out["kind"] = r["kind"];
  if (typeof r["apiVersion"] === "string") out["apiVersion"] = r["apiVersion"];
  if (isObject(r["scope"])) out["scope"] = r["scope"];
  if (isObject(r["summary"])) out["summary"] = shared.intern(r["summary"]);
  if (Array.isArray(r["results"]))
    out["results"] = r["results"].map((row) => (isObject(row) ? shared.intern(row) : row));
  return out;
}

function compactMetadata(meta: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of ["name", "namespace", "resourceVersion"] as const)
    if (meta[key] !== undefined) out[key] = meta[key];
  if (isObject(meta["labels"])) out["labels"] = shared.intern(meta["labels"]);
  if (Array.isArray(meta["ownerReferences"]))
    out["ownerReferences"] = meta["ownerReferences"].filter(isObject).map(({ apiVersion, kind, name, uid }) => ({
      ...(apiVersion !== undefined ? { apiVersion } : {}),
      ...(kind !== undefined ? { kind } : {}),
      ...(name !== undefined ? { name } : {}),
      ...(uid !== undefined ? { uid } : {}),
    }));
  return out;
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function deepFreeze<T extends JsonValue>(v: T): T {
  if (typeof v === "object" && v !== null) {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}
