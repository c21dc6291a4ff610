/**
 * Load a rule's (or foreach's) context entries, in order, into a copy of the JSON context.
 * Later entries see earlier ones. Sources outside the engine come through the ContextSources port;
 * a port answer of kind "unavailable" means "not loaded here" (as Kyverno's CLI does without a
 * cluster), so a later reference to the name fails as a missing variable would. The exceptions:
 * an imageRegistry entry that no port can load and no value stands in for, and any such entry when
 * the ports say `unloadable: "error"` (the webhook), are errors naming it: the rule would need data
 * Bylaw cannot get.
 */
import { isObject, type JsonObject, type JsonValue } from "../api/json.js";
import type { ContextEntry } from "../api/policy.js";
import { err, ok, type Result } from "../api/result.js";
import { substituteAll, substituteString, type SubstitutionScope } from "../variables/index.js";
import { setDotted } from "./request-context.js";

export function loadContextEntries(entries: readonly ContextEntry[], scope: SubstitutionScope): Result<JsonObject> {
  let data = scope.data;
  for (const entry of entries) {
    const current: SubstitutionScope = { ...scope, data };
    const loaded = loadEntry(entry, current);
    if (!loaded.ok) return err(loaded.error.kind, `failed to load context entry ${entry.name}: ${loaded.error.message}`);
    if (loaded.value === undefined) continue;
    data = setDotted(data, entry.name, loaded.value);
  }
  return ok(data);
}

function loadEntry(entry: ContextEntry, scope: SubstitutionScope): Result<JsonValue | undefined> {
  if (entry.variable) return loadVariable(entry.variable, scope);
  const ports = scope.fnctx.ports.context;
  const kind = entry.configMap ? "configMap" : entry.apiCall ? "apiCall" : entry.imageRegistry ? "imageRegistry" : entry.globalReference ? "globalReference" : undefined;
  if (kind !== undefined && !ports.canLoad(kind)) {
    // Nothing answers this kind here. A value for the name (a values file) stands in for the entry;
    // without one the rule would need data Bylaw cannot get: an error, never a quiet skip, for
    // registry data (no client yet) and wherever the ports say so (the webhook).
    if ((kind === "imageRegistry" || ports.unloadable === "error") && !hasValue(scope.data, entry.name)) {
      return err("unsupported", kind === "imageRegistry"
        ? `imageRegistry context entries (image registry data) are not supported by Bylaw yet: no registry access; give a value for ${JSON.stringify(entry.name)} in a values file to evaluate the rule`
        : `${kind} context entries cannot be loaded here: Bylaw has no ${kind === "configMap" ? "cluster client" : kind === "apiCall" ? "API call client" : "global context"} in this mode yet, so the rule cannot be evaluated`);
    }
    return ok(undefined);
  }
  if (entry.configMap) {
    const name = substituteString(entry.configMap.name, scope);
    if (!name.ok) return name;
    const ns = substituteString(entry.configMap.namespace ?? "", scope);
    if (!ns.ok) return ns;
    return unavailableIsSkip(ports.configMap(String(ns.value ?? ""), String(name.value ?? "")));
  }
  if (entry.apiCall) {
    const call = substituteAll(entry.apiCall as unknown as JsonValue, scope);
    if (!call.ok) return call;
    const c = call.value as JsonObject;
    const method = c["method"] === "POST" ? "POST" : "GET";
    const service = isObject(c["service"]) ? c["service"] : undefined;
    const answer = ports.apiCall({
      method,
      ...(typeof c["urlPath"] === "string" ? { urlPath: c["urlPath"] } : {}),
      ...(service && typeof service["url"] === "string" ? { serviceUrl: service["url"] } : {}),
      ...(c["data"] !== undefined ? { data: c["data"] } : {}),
    });
    if (!answer.ok) {
      if (answer.error.kind === "unavailable") return ok(undefined);
      if (entry.apiCall.default !== undefined) return ok(entry.apiCall.default);
      return answer;
    }
    return applyJmesPath(answer.value, entry.apiCall.jmesPath, entry.apiCall.default, scope);
  }
  if (entry.globalReference) {
    const answer = ports.globalReference(entry.globalReference.name);
    if (!answer.ok) return answer.error.kind === "unavailable" ? ok(undefined) : answer;
    return applyJmesPath(answer.value, entry.globalReference.jmesPath, undefined, scope);
  }
  if (entry.imageRegistry) {
    const ref = substituteString(entry.imageRegistry.reference, scope);
    if (!ref.ok) return ref;
    const answer = ports.imageData(String(ref.value ?? ""));
    if (!answer.ok) return answer.error.kind === "unavailable" ? ok(undefined) : answer;
    return applyJmesPath(answer.value, entry.imageRegistry.jmesPath, undefined, scope);
  }
  return ok(undefined);
}

function hasValue(data: JsonObject, dotted: string): boolean {
  let at: JsonValue | undefined = data;
  for (const part of dotted.split(".")) {
    if (!isObject(at)) return false;
    at = at[part];
  }
  return at !== undefined;
}

function unavailableIsSkip(r: Result<JsonValue>): Result<JsonValue | undefined> {
  if (!r.ok && r.error.kind === "unavailable") return ok(undefined);
  return r;
}

function loadVariable(v: NonNullable<ContextEntry["variable"]>, scope: SubstitutionScope): Result<JsonValue | undefined> {
  let input: JsonValue = scope.data;
  if (v.value !== undefined) {
    const sub = substituteAll(v.value, scope);
    if (!sub.ok) return v.default !== undefined ? ok(v.default) : sub;
    input = sub.value;
    if (v.jmesPath === undefined) return ok(input);
  }
  const result = applyJmesPath(input, v.jmesPath, v.default, scope);
  if (!result.ok) return result;
  if (result.value === null || result.value === undefined) return err("context", "variable evaluated to nil; set a default");
  return result;
}

function applyJmesPath(value: JsonValue, jmesPath: string | undefined, dflt: JsonValue | undefined, scope: SubstitutionScope): Result<JsonValue> {
  if (jmesPath === undefined || jmesPath === "") return ok(value);
  const path = substituteString(jmesPath, scope);
  if (!path.ok) return dflt !== undefined ? ok(dflt) : path;
  try {
    const compiled = scope.cache.get(String(path.value));
    const out = compiled.search(value, scope.fnctx);
    if ((out === null || out === undefined) && dflt !== undefined) return ok(dflt);
    return ok(out);
  } catch (e) {
    if (dflt !== undefined) return ok(dflt);
    return err("jmespath", `failed to apply jmesPath ${JSON.stringify(jmesPath)}: ${(e as Error).message}`);
  }
}
