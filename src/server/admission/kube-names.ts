/**
 * Names Bylaw writes into its webhook configurations, kept valid for the API server and unique where
 * it requires them to be. The API server checks every webhook of a configuration at once: one name it
 * refuses (too long, a duplicate) makes it refuse the whole Validating/MutatingWebhookConfiguration,
 * and with it the registration of every other policy. Kyverno builds these names by plain
 * concatenation (`pkg/controllers/webhook` `webhookNameAndPath`; `pkg/cel/autogen` `CreateMatchConditions`
 * prefixes `autogen-`, `autogen-<config>-`) and checks neither, so Bylaw keeps Kyverno's name
 * whenever it is valid and unique, and otherwise:
 *
 * - a matchCondition name (a qualified name: name part ≤ 63 of `[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?`,
 *   optional DNS-subdomain prefix ≤ 253 and `/`) becomes its own first characters (any `/` made a
 *   `-`) and `-<hash>`, 63 characters at most;
 * - a webhook name (a DNS subdomain ≤ 253) becomes its own first characters and `-<hash>`;
 *
 * where `<hash>` is the first 12 hex digits of the SHA-256 of what the name stands for (the policy's
 * key; the condition's group and its own name), so it is stable across restarts and replicas, and
 * two names that only differ past the cut stay apart. Names that collide in one list (two
 * namespaced policies whose `<ns>-<name>` read alike, a user's condition named like a generated one)
 * are all given their hash, so the result does not depend on the order of the list.
 */
import { createHash } from "node:crypto";
import { dns1123Subdomain, qualifiedName } from "../../engine/index.js";

const HASH_LENGTH = 12;
const MAX_NAME_PART = 63;
const MAX_SUBDOMAIN = 253;

/** The first 12 hex digits of the SHA-256 of `text`. */
function shortHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, HASH_LENGTH);
}

/** `name` when it is a valid qualified name; else its first characters and the hash of `origin`, a valid qualified name. */
export function conditionName(name: string, origin: string): string {
  return qualifiedName(name).length === 0 ? name : hashedConditionName(name, origin);
}

/** Always the shortened form: `<head>-<hash of origin>`, at most 63 characters, no prefix part. */
export function hashedConditionName(name: string, origin: string): string {
  const head = name
    .replace(/\//g, "-")
    .replace(/[^-A-Za-z0-9_.]/g, "")
    .replace(/^[^A-Za-z0-9]+/, "")
    .slice(0, MAX_NAME_PART - HASH_LENGTH - 1)
    .replace(/[^A-Za-z0-9]+$/, "");
  const hash = shortHash(origin);
  return head === "" ? hash : `${head}-${hash}`;
}

/** `name` when it is a valid DNS subdomain; else its first characters and the hash of `origin`. */
export function webhookName(name: string, origin: string): string {
  return dns1123Subdomain(name).length === 0 ? name : hashedWebhookName(name, origin);
}

/** Always the shortened form: `<head>-<hash of origin>`, at most 253 characters. */
export function hashedWebhookName(name: string, origin: string): string {
  const head = name.slice(0, MAX_SUBDOMAIN - HASH_LENGTH - 1).replace(/[-.]+$/, "");
  return `${head}-${shortHash(origin)}`;
}

/**
 * The names of `items`, each name that more than one item has replaced by `rename(item)` for every
 * item that has it. `rename` must depend on what tells the items apart (their origin), so that the
 * renamed ones differ.
 */
export function distinctNames<T>(
  items: readonly T[],
  nameOf: (item: T) => string,
  rename: (item: T) => string,
): string[] {
  const names = items.map(nameOf);
  const counts = new Map<string, number>();
  for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1);
  return names.map((n, i) => ((counts.get(n) ?? 0) > 1 ? rename(items[i] as T) : n));
}
