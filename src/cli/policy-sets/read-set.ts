/**
 * Read one `set.yaml`:
 *
 *   apiVersion: bylaw.dev/v1alpha1
 *   kind: PolicySet
 *   metadata: {name: pss-restricted}
 *   description: ...
 *   policies: [disallow-privileged.yaml, ../pss-baseline/controls/]   # relative to the set's folder
 */
import { dirname, isAbsolute, resolve } from "node:path";
import { isObject, type JsonValue } from "../../engine/index.js";
import { loadPaths } from "../../platform/files/index.js";
import { POLICY_SET_API_VERSION, POLICY_SET_KIND, type PolicySet } from "./types.js";

type SetRead = { ok: true; set: PolicySet } | { ok: false; problem: string };

export async function readPolicySet(file: string): Promise<SetRead> {
  const docs = (await loadPaths([file])).filter((d) => d.value !== undefined || d.error !== undefined);
  const failed = docs.find((d) => d.error !== undefined);
  if (failed?.error !== undefined) return { ok: false, problem: failed.error };
  if (docs.length !== 1)
    return { ok: false, problem: `${file}: expected one PolicySet document, found ${docs.length}` };
  return parsePolicySet(docs[0]?.value ?? null, file);
}

export function parsePolicySet(doc: JsonValue, file: string): SetRead {
  const bad = (why: string): SetRead => ({ ok: false, problem: `${file}: ${why}` });
  if (!isObject(doc)) return bad("a PolicySet must be a mapping");
  if (doc["apiVersion"] !== POLICY_SET_API_VERSION)
    return bad(`apiVersion must be ${POLICY_SET_API_VERSION} (got ${JSON.stringify(doc["apiVersion"] ?? null)})`);
  if (doc["kind"] !== POLICY_SET_KIND)
    return bad(`kind must be ${POLICY_SET_KIND} (got ${JSON.stringify(doc["kind"] ?? null)})`);
  const metadata = doc["metadata"];
  const name = isObject(metadata) ? metadata["name"] : undefined;
  if (typeof name !== "string" || !/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(name))
    return bad("metadata.name must be a lower-case name such as pss-baseline");
  const description = doc["description"] ?? "";
  if (typeof description !== "string") return bad("description must be a string");
  const policies = doc["policies"];
  if (!Array.isArray(policies) || policies.length === 0)
    return bad("policies must list at least one policy file or folder");
  const entries: string[] = [];
  for (const [i, p] of policies.entries()) {
    if (typeof p !== "string" || p === "") return bad(`policies[${i}] must be a path (relative to the set's folder)`);
    entries.push(isAbsolute(p) ? p : resolve(dirname(file), p));
  }
  return { ok: true, set: { name, description: description.trim().replace(/\s+/g, " "), file, entries } };
}
