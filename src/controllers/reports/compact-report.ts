/**
 * What the reports informer keeps of each report (issue 35, RSS and CPU): only what the scan decides
 * a write with and what the sweep reads, never the rows themselves:
 * - identity and the resourceVersion (an update is made at the version read), labels and owners;
 * - the scope (the sweep tells the reports of watched kinds from the others by it);
 * - the digest of the content (report-content.ts): a rescan compares the report it would write with
 *   this, not with 19 stored rows per report;
 * - the policies that have rows in it: a scan that must keep another component's rows (admission's)
 *   reads the whole report only when it holds some (reconcile.ts answers `read`).
 * Everything else the server stores (uid, creationTimestamp, generation, annotations, managedFields,
 * the rows) is dropped. The parts repeated across reports (labels, the list of policies) are
 * interned: one frozen object per distinct JSON, shared by every report that has it, held weakly
 * (a part no cached report has any more is collected, and its table entry with it).
 */
import type { JsonObject, JsonValue } from "../../engine/index.js";
import type { KubeObject } from "../../kube/types.js";
import { contentDigest, rowsOf } from "./report-content.js";

/** Where a compacted report keeps its digest and the names of the policies with rows in it. */
const DIGEST = "contentDigest";
const ROW_POLICIES = "rowPolicies";

class Interner {
  private readonly table = new Map<string, WeakRef<JsonObject>>();
  private readonly cleanup = new FinalizationRegistry<string>((key) => {
    if (this.table.get(key)?.deref() === undefined) this.table.delete(key);
  });

  /** The shared frozen copy of `value` (by its JSON). */
  intern<T extends JsonObject | JsonValue[]>(value: T): T {
    const key = JSON.stringify(value);
    const held = this.table.get(key)?.deref();
    if (held !== undefined) return held as T;
    const frozen = deepFreeze(value);
    this.table.set(key, new WeakRef(frozen as JsonObject));
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

/** The report as the scan needs it: identity, resourceVersion, labels, owners, scope, the content's digest and the policies with rows. */
export function compactReport(report: KubeObject): KubeObject {
  const r = report as JsonObject;
  const meta = (r["metadata"] ?? {}) as JsonObject;
  const out: JsonObject = { metadata: compactMetadata(meta) };
  if (typeof r["kind"] === "string") out["kind"] = r["kind"];
  if (typeof r["apiVersion"] === "string") out["apiVersion"] = r["apiVersion"];
  if (isObject(r["scope"])) out["scope"] = r["scope"];
  out[DIGEST] = contentDigest(r);
  const policies = [...new Set(rowsOf(r).map((row) => row["policy"]))].filter((p) => typeof p === "string").sort();
  out[ROW_POLICIES] = shared.intern(policies);
  return out;
}

/** The content digest of a compacted report; undefined for a report read whole (it has its rows). */
export function digestOf(report: JsonObject): string | undefined {
  const d = report[DIGEST];
  return typeof d === "string" ? d : undefined;
}

/** The policies with rows in a compacted report (none listed for a report read whole: it has its rows). */
export function rowPoliciesOf(report: JsonObject): string[] {
  const listed = report[ROW_POLICIES];
  return Array.isArray(listed) ? listed.filter((p) => typeof p === "string") : [];
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
