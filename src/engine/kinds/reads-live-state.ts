/**
 * Whether a policy's evaluation can read more than the request, the resource's namespace and the
 * policy set: the cluster (context `configMap`, `apiCall`, `globalReference`; the CEL `resource` and
 * `globalContext` libraries), a service (`http`), a registry (`imageRegistry`, image verification,
 * the CEL `image`/`imagedata` libraries), a parameter object (`paramKind`, `paramRef`), the clock or
 * randomness (JMESPath and CEL). Read once from
 * the policy's own document at compile time, for every kind alike (the head's `readsLiveState`). A
 * MutatingPolicy's ApplyConfiguration reads the cluster too: it is typed with the cluster's OpenAPI,
 * which a CRD's edit changes.
 * A background rescan never skips a resource such a policy answered for: its result may differ
 * while nothing Bylaw can version changed (controllers/reports/rescan-skip.ts).
 */
import type { JsonValue } from "../api/json.js";

/** Keys whose presence (with a value other than null or []) means a read of the cluster, a registry or a service. */
const LIVE_KEYS = new Set([
  "configMap",
  "apiCall",
  "imageRegistry",
  "globalReference",
  "verifyImages",
  "attestors",
  "attestations",
  "paramKind",
  "paramRef",
  "applyConfiguration",
]);

/** Calls of the CEL libraries that read the cluster, a service or a registry, and of the clock or randomness (CEL and JMESPath). */
const LIVE_CALLS =
  /\b(?:(?:resource|http|globalContext|image|imagedata)\s*\.\s*[A-Z]\w*\s*\(|time\s*\.\s*now\s*\(|time_now(?:_utc)?\s*\(|time_since\s*\(|random\s*\()/;

export function documentReadsLiveState(v: JsonValue): boolean {
  if (typeof v === "string") return LIVE_CALLS.test(v);
  if (Array.isArray(v)) return v.some(documentReadsLiveState);
  if (v === null || typeof v !== "object") return false;
  for (const [k, x] of Object.entries(v)) {
    if (LIVE_KEYS.has(k) && x !== null && !(Array.isArray(x) && x.length === 0)) return true;
    if (documentReadsLiveState(x)) return true;
  }
  return false;
}
