/**
 * Load a rule's (or foreach's) context entries, in order, into a copy of the JSON context.
 * Later entries see earlier ones. An entry that fails is an error only where a query reads it
 * (Kyverno's deferred loading, variables/deferred-failures.ts). Sources outside the engine come through the ContextSources port.
 * An entry the port cannot load (as Kyverno's CLI without a cluster) is left to a value for its
 * name from a values file; without one it is an error naming the entry when the ports say
 * `unloadable: "error"` (Bylaw's CLI and webhook), and for imageRegistry entries (whose message
 * names `--registry`, the CLI's registry access) unless a later variable entry's default stands in
 * for it, as in Kyverno's CLI (registry-default.ts). With `skipAsKyvernoCli` (Bylaw's CLI) configMap,
 * globalReference and imageRegistry entries are skipped as Kyverno's CLI skips them, with a warning.
 */
import { isObject, type JsonObject, type JsonValue, textOf } from "../api/json.js";
import type { ContextEntry } from "../api/policy.js";
import { err, ok, type Result } from "../api/result.js";
import { CONTEXT_ERRORS_WITHOUT_DEFAULT } from "../ports.js";
import {
  deferredFailure,
  substituteAll,
  substituteString,
  type DeferredFailure,
  type SubstitutionScope,
} from "../variables/index.js";
import { setDotted } from "./request-context.js";
import { jsonSizeUpTo, MAX_CONTEXT_BYTES } from "./context-size.js";
import { defaultReadingEntry, registryDefaultWarning } from "./registry-default.js";
import { skippedEntryWarning } from "./skipped-entry-warning.js";
import { charge, CONTEXT_READ_UNITS } from "../interrupt/index.js";
import { loadVariable, VARIABLE_ERROR } from "./variable-entry.js";

/** The context after a scope's entries: their values, and the entries that failed to load. */
interface LoadedContext {
  readonly data: JsonObject;
  /** Entries whose source failed: an error only for a query that names one (Kyverno's deferred loading). */
  readonly failed: readonly DeferredFailure[];
}

/**
 * Every entry is loaded in order; one that fails is kept as a failure (and the entries after it
 * still load), so only what reads it fails. Only the 2 MiB context limit stops the loading.
 */
export function loadContextEntries(entries: readonly ContextEntry[], scope: SubstitutionScope): Result<LoadedContext> {
  let data = scope.data;
  let failed: readonly DeferredFailure[] = scope.deferred ?? [];
  let added = 0;
  for (const [i, entry] of entries.entries()) {
    const current: SubstitutionScope = { ...scope, data, deferred: failed };
    const loaded = loadEntry(entry, current, entries.slice(i + 1));
    if (!loaded.ok) {
      const message = failureMessage(entry, loaded.error);
      failed = [
        ...failed.filter((f) => f.name !== entry.name),
        deferredFailure(entry.name, loaded.error.kind, message),
      ];
      continue;
    }
    if (loaded.value === undefined) continue;
    added += jsonSizeUpTo(loaded.value, MAX_CONTEXT_BYTES - added);
    if (added > MAX_CONTEXT_BYTES) {
      return err(
        "context-size",
        `failed to load context entry ${entry.name}: the context entries of this rule add more than ${MAX_CONTEXT_BYTES} bytes (2 MiB, Kyverno's context size limit)`,
      );
    }
    data = setDotted(data, entry.name, loaded.value);
    if (failed.some((f) => f.name === entry.name)) failed = failed.filter((f) => f.name !== entry.name);
  }
  return ok({ data, failed });
}

/**
 * Error kinds that are Bylaw's own answer, not the API server's: nothing loads the entry here, a call
 * Bylaw does not make, a tenant's refused read, a cache not ready or not read yet.
 */
const BYLAW_REFUSALS = new Set(["unavailable", "unsupported", "refused", "not-ready", "pending"]);

/**
 * How a failed entry reads: a variable's, an API call's, a ConfigMap's or an image registry's failure
 * in Kyverno's words (its loaders' own text, `failed to fetch data for APICall: …`, `failed to
 * retrieve config map for context entry NAME: failed to get configmap NS/NAME : …` and `failed to
 * fetch image descriptor: REF, error: …`); Bylaw's own refusals (nothing here can load the entry, a
 * call Bylaw does not make, a tenant's refused read) and other entries name the entry.
 */
function failureMessage(entry: ContextEntry, error: { readonly kind: string; readonly message: string }): string {
  if (error.kind === VARIABLE_ERROR) return error.message;
  if (!BYLAW_REFUSALS.has(error.kind)) {
    if (entry.apiCall !== undefined) return `failed to fetch data for APICall: ${error.message}`;
    if (entry.configMap !== undefined)
      return `failed to retrieve config map for context entry ${entry.name}: ${error.message}`;
    // Kyverno's image data loader returns the registry's failure as it is (`failed to fetch image
    // descriptor: REF, error: …`), naming no entry.
    if (entry.imageRegistry !== undefined) return error.message;
  }
  return `failed to load context entry ${entry.name}: ${error.message}`;
}

function loadEntry(
  entry: ContextEntry,
  scope: SubstitutionScope,
  later: readonly ContextEntry[],
): Result<JsonValue | undefined> {
  if (entry.variable) return loadVariable(entry.name, entry.variable, scope);
  const ports = scope.fnctx.ports.context;
  const kind = entry.configMap
    ? "configMap"
    : entry.apiCall
      ? "apiCall"
      : entry.imageRegistry
        ? "imageRegistry"
        : entry.globalReference
          ? "globalReference"
          : undefined;
  // Nothing answers this kind here (or not this entry): a value for the name (a values file)
  // stands in for it; without one the rule would need data Bylaw cannot get.
  const notLoaded = (): Result<JsonValue | undefined> =>
    kind === undefined ? ok(undefined) : unloaded(kind, entry.name, scope, later);
  if (kind !== undefined && !ports.canLoad(kind)) return notLoaded();
  // A read through a port (a live lookup) is slow work: it counts toward the caller's next check.
  if (kind !== undefined) charge(CONTEXT_READ_UNITS);
  if (entry.configMap) {
    const name = substituteString(entry.configMap.name, scope);
    if (!name.ok) return name;
    const ns = substituteString(entry.configMap.namespace ?? "", scope);
    if (!ns.ok) return ns;
    const answer = ports.configMap(textOf(ns.value ?? ""), textOf(name.value ?? ""), {
      policyNamespace: scope.policyNamespace ?? "",
    });
    return !answer.ok && answer.error.kind === "unavailable" ? notLoaded() : answer;
  }
  if (entry.apiCall) {
    const call = substituteAll(entry.apiCall as unknown as JsonValue, scope);
    if (!call.ok) return call;
    const c = call.value as JsonObject;
    const method = c["method"] === "POST" ? "POST" : "GET";
    const service = isObject(c["service"]) ? c["service"] : undefined;
    const answer = ports.apiCall(
      {
        method,
        ...(typeof c["urlPath"] === "string" ? { urlPath: c["urlPath"] } : {}),
        ...(service && typeof service["url"] === "string" ? { serviceUrl: service["url"] } : {}),
        ...(service && typeof service["caBundle"] === "string" && service["caBundle"] !== ""
          ? { caBundle: service["caBundle"] }
          : {}),
        ...(service && Array.isArray(service["headers"]) ? { headers: headersOf(service["headers"]) } : {}),
        ...(c["data"] !== undefined ? { data: c["data"] } : {}),
      },
      { policyNamespace: scope.policyNamespace ?? "" },
    );
    if (!answer.ok) {
      if (answer.error.kind === "unavailable") return notLoaded();
      if (entry.apiCall.default !== undefined && !CONTEXT_ERRORS_WITHOUT_DEFAULT.has(answer.error.kind))
        return ok(entry.apiCall.default);
      return answer;
    }
    return applyJmesPath(answer.value, entry.apiCall.jmesPath, entry.apiCall.default, scope);
  }
  if (entry.globalReference) {
    // The name may hold variables (Kyverno substitutes the whole globalReference).
    const name = substituteString(entry.globalReference.name, scope);
    if (!name.ok) return name;
    const answer = ports.globalReference(textOf(name.value ?? ""), { policyNamespace: scope.policyNamespace ?? "" });
    if (!answer.ok) return answer.error.kind === "unavailable" ? notLoaded() : answer;
    return applyJmesPath(answer.value, entry.globalReference.jmesPath, undefined, scope);
  }
  if (entry.imageRegistry) {
    const ref = substituteString(entry.imageRegistry.reference, scope);
    if (!ref.ok) return ref;
    const creds = entry.imageRegistry.imageRegistryCredentials;
    const answer = ports.imageData(textOf(ref.value ?? ""), {
      form: "context",
      ...(creds !== undefined ? { credentials: creds } : {}),
      caller: { policyNamespace: scope.policyNamespace ?? "" },
    });
    if (!answer.ok) return answer.error.kind === "unavailable" ? notLoaded() : answer;
    return applyJmesPath(answer.value, entry.imageRegistry.jmesPath, undefined, scope);
  }
  return ok(undefined);
}

function headersOf(list: readonly JsonValue[]): { key: string; value: string }[] {
  return list.filter(isObject).map((h) => ({ key: textOf(h["key"] ?? ""), value: textOf(h["value"] ?? "") }));
}

function hasValue(data: JsonObject, dotted: string): boolean {
  let at: JsonValue | undefined = data;
  for (const part of dotted.split(".")) {
    if (!isObject(at)) return false;
    at = at[part];
  }
  return at !== undefined;
}

const SOURCES = {
  configMap: "ConfigMap",
  apiCall: "API call",
  globalReference: "global context entry",
  imageRegistry: "image registry",
} as const;

/**
 * An entry no port loaded. With a value for its name already in the context (a values file) the
 * value stands. Otherwise it is an error naming the entry (imageRegistry always; other kinds unless
 * the ports say `unloadable: "skip"`, Kyverno's CLI behaviour, which leaves the name unset).
 */
function unloaded(
  kind: keyof typeof SOURCES,
  name: string,
  scope: SubstitutionScope,
  later: readonly ContextEntry[],
): Result<JsonValue | undefined> {
  if (hasValue(scope.data, name)) return ok(undefined);
  if (kind !== "apiCall" && scope.fnctx.ports.context.skipAsKyvernoCli === true) {
    scope.fnctx.ports.context.warn?.(skippedEntryWarning(kind, name));
    return ok(undefined);
  }
  if (kind === "imageRegistry") {
    const reader = defaultReadingEntry(name, later);
    if (reader !== undefined) {
      scope.fnctx.ports.context.warn?.(registryDefaultWarning(name, reader.name));
      return ok(undefined);
    }
    return err(
      "unavailable",
      `imageRegistry context entries read an image registry, and this run has no registry access: run bylaw apply or bylaw test with --registry (bylaw serve reads registries with --cluster), or give a value for ${JSON.stringify(name)} in a values file (-f values.yaml) to evaluate the rule`,
    );
  }
  if (scope.fnctx.ports.context.unloadable === "skip") return ok(undefined);
  const mock =
    kind === "apiCall"
      ? "mock the call in the test's apiCallResponses (urlPath, response.body)"
      : kind === "globalReference"
        ? "give the entry in the test's globalContextEntries"
        : "give it in the test's values";
  return err(
    "unavailable",
    `${kind} context entries cannot be loaded in this run (no ${SOURCES[kind]} data was given, and it reads no cluster: bylaw apply --cluster reads one). To supply it offline: in bylaw apply, a values file (-f values.yaml: globalValues or policies[].rules[].values with ${JSON.stringify(name)}) or --set ${name}=VALUE; in a kyverno test, ${mock}`,
  );
}

function applyJmesPath(
  value: JsonValue,
  jmesPath: string | undefined,
  dflt: JsonValue | undefined,
  scope: SubstitutionScope,
): Result<JsonValue> {
  if (jmesPath === undefined || jmesPath === "") return ok(value);
  const path = substituteString(jmesPath, scope);
  if (!path.ok) return dflt !== undefined ? ok(dflt) : path;
  try {
    const compiled = scope.cache.get(textOf(path.value));
    const out = compiled.search(value, scope.fnctx);
    if ((out === null || out === undefined) && dflt !== undefined) return ok(dflt);
    return ok(out);
  } catch (e) {
    if (dflt !== undefined) return ok(dflt);
    return err("jmespath", `failed to apply jmesPath ${JSON.stringify(jmesPath)}: ${(e as Error).message}`);
  }
}
