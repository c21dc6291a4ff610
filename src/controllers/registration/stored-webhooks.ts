/**
 * Whether a webhook Bylaw wrote is in force: the configuration the API server stored (the answer to
 * the write, or a read of it) holds a webhook of that name with the same rules, matchConditions,
 * namespace selector and path. What Bylaw tried to write is not evidence; what the API server stored is.
 */
import { isObject, jsonEqual, type JsonValue } from "../../engine/index.js";
import type { Webhook } from "./types.js";

/** The stored webhooks by name; empty when `stored` is not a webhook configuration. */
export function storedWebhooks(stored: unknown): ReadonlyMap<string, JsonValue> {
  const out = new Map<string, JsonValue>();
  if (!isObject(stored) || !Array.isArray((stored as { webhooks?: unknown }).webhooks)) return out;
  for (const w of (stored as { webhooks: JsonValue[] }).webhooks)
    if (isObject(w) && typeof w["name"] === "string") out.set(w["name"], w);
  return out;
}

/** Whether `stored` (one stored webhook) is `wanted` as far as which requests reach Bylaw. */
export function inForce(stored: JsonValue | undefined, wanted: Webhook): boolean {
  if (!isObject(stored)) return false;
  const config = isObject(stored["clientConfig"]) ? stored["clientConfig"] : {};
  const service = isObject(config["service"]) ? config["service"] : {};
  const sameTarget =
    wanted.clientConfig.url !== undefined
      ? config["url"] === wanted.clientConfig.url
      : service["path"] === wanted.clientConfig.service?.path;
  return (
    sameTarget &&
    jsonEqual(stored["rules"] ?? [], wanted.rules) &&
    jsonEqual(stored["matchConditions"] ?? [], wanted.matchConditions ?? []) &&
    jsonEqual(stored["namespaceSelector"] ?? {}, wanted.namespaceSelector ?? {})
  );
}
