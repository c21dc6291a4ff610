/**
 * A generate UpdateRequest whose trigger the API server has not stored yet. The webhook writes the
 * request while the API server is still admitting the trigger (every validating webhook must answer
 * before it stores), so the controller can run it first:
 * - a CREATE's or UPDATE's trigger not shown at all (or with another uid): Kyverno's failure
 *   (`pkg/background/common/resource.go`, GetTrigger), retried with the controller's backoff;
 * - an UPDATE the API server still shows at the old object's resourceVersion, though it changes
 *   the object: evaluated now, it would generate from the object before the update and nothing would
 *   run it again, so it is retried a few times; after those, the live object is used, as Kyverno does
 *   (an UPDATE another webhook refused leaves the object as it was).
 */
import { type CompiledPolicy, isObject, type Resource } from "../../engine/index.js";
import type { RunOutcome } from "./run-update-request.js";
import type { UpdateRequest } from "./update-request.js";

/** Tries an UPDATE not stored yet waits for (1 + 2 + 4 s with the controller's backoff) before the live object is used. */
export const UPDATE_WAIT_TRIES = 3;

/** Failed, naming why; transient (retried) unless the trigger's kind is not served at all. */
export function triggerPending(
  ur: UpdateRequest,
  o: { readonly policy: CompiledPolicy; readonly served: boolean; readonly updateAt?: string },
): RunOutcome {
  const t = ur.trigger;
  const where = t.namespace === "" ? t.name : `${t.namespace}/${t.name}`;
  const reason =
    o.updateAt !== undefined
      ? `trigger resource ${t.apiVersion}/${t.kind} ${where} is still at resourceVersion ${o.updateAt}: the ${ur.operation} is not stored yet`
      : t.uid !== ""
        ? `trigger resource ${t.apiVersion}/${t.kind} ${where} with uid ${t.uid} not found in the cluster, the corresponding admission request may have been rejected by the API server`
        : `resource ${t.apiVersion}/${t.kind}/${t.namespace}/${t.name}: ${o.served ? "not found" : "the API server does not serve this kind"}`;
  const failed = `failed to fetch trigger resource: ${reason}`;
  const message =
    o.policy.language === "generating"
      ? `gpol ${ur.policy} failed: ${failed}`
      : ur.rules
          .filter((r) => !r.deleteDownstream)
          .map((r) => `rule ${r.rule} failed: ${failed}`)
          .join("; ");
  return { state: "Failed", message, generated: [], transient: o.served, sources: [] };
}

/**
 * The resourceVersion the live trigger still has when an UPDATE that changes the object is not
 * stored yet; undefined when it is (or when the request holds no old object to tell).
 */
export function unstoredUpdate(ur: UpdateRequest, live: Resource): string | undefined {
  if (ur.operation !== "UPDATE" || ur.admissionRequest === undefined) return undefined;
  const before = ur.admissionRequest["oldObject"];
  const after = ur.admissionRequest["object"];
  if (!isObject(before) || !isObject(after)) return undefined;
  const version = versionOf(before);
  if (version === undefined || versionOf(live) !== version) return undefined;
  return comparable(before) === comparable(after) ? undefined : version;
}

function versionOf(o: Record<string, unknown>): string | undefined {
  const meta = o["metadata"];
  return isObject(meta) && typeof meta["resourceVersion"] === "string" ? meta["resourceVersion"] : undefined;
}

/** The object without what the API server sets on every write: a no-op UPDATE compares equal. */
function comparable(o: Record<string, unknown>): string {
  const meta = isObject(o["metadata"]) ? { ...o["metadata"] } : {};
  delete meta["managedFields"];
  delete meta["resourceVersion"];
  delete meta["generation"];
  return JSON.stringify({ ...o, metadata: meta });
}
