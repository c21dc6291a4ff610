/**
 * What the reports informer keeps of each report (issue 35, RSS and CPU): only what the scan decides
 * a write with and what the sweep reads, never the rows themselves:
 * - identity and the resourceVersion (an update is made at the version read), labels and owners;
 * - the scope (the sweep tells the reports of watched kinds from the others by it);
 * - what the content is: a rescan compares the report it would write with a digest, not with 19
 *   stored rows per report;
 * - the policies that have rows in it: a scan that must keep another component's rows (admission's)
 *   reads the whole report only when it holds some (reconcile.ts answers `read`).
 *
 * The informer lists and watches reports' metadata only (as Kyverno's reports controller uses
 * metadata informers): the rows are neither sent nor parsed. Bylaw writes each report with the
 * digest of its content and the policies with rows as annotations (report-annotations.ts), and
 * those are believed only when Bylaw alone wrote the report: its managedFields name no other
 * manager. A report someone else wrote or edited (kubectl, Kyverno) is `unknown` until the scan
 * reads it whole. A server that sends the whole report anyway gets it digested from its rows.
 *
 * Everything else the server stores is dropped. The parts repeated across reports (labels, the list
 * of policies) are interned: one frozen object per distinct JSON, shared by every report that has
 * it, held weakly (a part no cached report has any more is collected, and its table entry with it).
 */
import type { JsonObject, JsonValue } from "../../engine/index.js";
import type { KubeObject } from "../../kube/types.js";
import { REPORT_FIELD_MANAGER } from "../../kube/report-calls.js";
import { contentDigest, rowPolicyNames } from "./report-content.js";
import { writtenContent } from "./report-annotations.js";

/**
 * Where a compacted report keeps what its content is: the digest of its rows (`contentDigest`, a
 * report sent whole) or the digest Bylaw wrote with it (`writtenDigest`); `contentUnknown` when
 * neither can be told. And the names of the policies with rows in it.
 */
const DIGEST = "contentDigest";
const WRITTEN = "writtenDigest";
const UNKNOWN = "contentUnknown";
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

/**
 * The report as the scan needs it: identity, resourceVersion, labels, owners, scope, what its content
 * is and the policies with rows. `report` as the server sends it (managedFields included), whole or
 * its metadata only.
 */
export function compactReport(report: KubeObject): KubeObject {
  const r = report as JsonObject;
  const meta = (r["metadata"] ?? {}) as JsonObject;
  const out: JsonObject = { metadata: compactMetadata(meta) };
  const whole = "results" in r || "summary" in r || "scope" in r;
  const scope = whole ? r["scope"] : scopeFromOwner(meta);
  if (isObject(scope)) out["scope"] = scope;
  if (whole) {
    out[DIGEST] = contentDigest(r);
    out[ROW_POLICIES] = shared.intern(rowPolicyNames(r));
    return out;
  }
  const written = writtenContent(meta);
  if (written === undefined || !writtenByBylawAlone(meta)) {
    out[UNKNOWN] = true;
    return out;
  }
  out[WRITTEN] = written.digest;
  out[ROW_POLICIES] = shared.intern([...written.policies]);
  return out;
}

/** Whether the report's managedFields name Bylaw's field manager and no other: nobody else changed it since. */
export function writtenByBylawAlone(meta: JsonObject): boolean {
  const entries = meta["managedFields"];
  return (
    Array.isArray(entries) &&
    entries.length > 0 &&
    entries.every((e) => isObject(e) && e["manager"] === REPORT_FIELD_MANAGER)
  );
}

/** A metadata-only report's scope: Bylaw's and Kyverno's reports are owned by their resource, in its namespace. */
function scopeFromOwner(meta: JsonObject): JsonObject | undefined {
  const owners = meta["ownerReferences"];
  const owner = Array.isArray(owners) ? owners[0] : undefined;
  if (!isObject(owner)) return undefined;
  const { apiVersion, kind, name, uid } = owner;
  const ns = meta["namespace"];
  return {
    ...(apiVersion !== undefined ? { apiVersion } : {}),
    ...(kind !== undefined ? { kind } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(typeof ns === "string" && ns !== "" ? { namespace: ns } : {}),
    ...(uid !== undefined ? { uid } : {}),
  };
}

/**
 * What a compacted report's content is, to compare a report the scan built with: `rows` (the
 * digest of its rows), `written` (the digest Bylaw wrote with it), `unknown` (read it whole first);
 * undefined for a report read whole (it has its rows).
 */
export function knownContent(
  report: JsonObject,
): { readonly form: "rows" | "written"; readonly digest: string } | "unknown" | undefined {
  if (report[UNKNOWN] === true) return "unknown";
  const d = report[DIGEST];
  if (typeof d === "string") return { form: "rows", digest: d };
  const w = report[WRITTEN];
  return typeof w === "string" ? { form: "written", digest: w } : undefined;
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
