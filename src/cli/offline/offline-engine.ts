/** The engine for `bylaw test` and `bylaw apply`: the library's offline engine, fed a test's mocked cluster data. */
import { isObject, type Engine, type JsonObject, type JsonValue } from "../../engine/index.js";
import { createOfflineEngine } from "../../platform/offline-engine.js";
import type { MockedApiCall } from "../../platform/offline-context.js";
import type { ImageDataSource } from "../../platform/registry/registry-access.js";
import type { SuiteCluster } from "../test-suite/context-file.js";
import { evaluateGlobalMocks } from "../test-suite/global-context-mocks.js";
import type { TestSpec } from "../test-suite/test-file.js";

/** What the engine did in the user's stead, on stderr, each message once per engine. */
function warnOnce(): (message: string) => void {
  const said = new Set<string>();
  return (message) => {
    if (said.has(message)) return;
    said.add(message);
    process.stderr.write(`warning: ${message}\n`);
  };
}

/**
 * `extra.registry`: `--registry`'s access, for imageRegistry entries and CEL image.GetMetadata.
 * `extra.params`: the objects validate.cel paramRefs take params from (`bylaw apply`'s resources,
 * read when asked); ValidatingAdmissionPolicy bindings get none of them, as Kyverno's apply hands
 * none over, unless `extra.bindingParams` (--parameter-resource) gives theirs. Without it, a test's
 * paramResources serve both.
 */
export function offlineEngine(
  spec?: TestSpec,
  cluster?: SuiteCluster,
  extra: {
    readonly registry?: ImageDataSource;
    readonly params?: () => readonly JsonObject[];
    /** `bylaw apply --parameter-resource`: the objects ValidatingAdmissionPolicy bindings take params from. */
    readonly bindingParams?: () => readonly JsonObject[];
    /** `bylaw apply`'s resources, targets and parameters: what answers apiCall GETs (Kyverno's apply's fake client). */
    readonly apiCallObjects?: () => readonly JsonObject[];
    /** `--crd-paths` (a test's `clusterResources` `spec.crds`): their kinds are typed for a MutatingPolicy's ApplyConfiguration. */
    readonly crds?: readonly JsonObject[];
  } = {},
): Engine {
  const apiCalls: MockedApiCall[] = [];
  const globalEntries: Record<string, JsonValue> = {};
  for (const m of spec?.apiCallResponses ?? []) {
    const response = isObject(m["response"]) ? m["response"] : {};
    apiCalls.push({
      ...(typeof m["urlPath"] === "string" ? { urlPath: m["urlPath"] } : {}),
      ...(typeof m["url"] === "string" ? { url: m["url"] } : {}),
      ...(typeof m["method"] === "string" ? { method: m["method"] } : {}),
      statusCode: typeof response["statusCode"] === "number" ? response["statusCode"] : 200,
      body: response["body"] ?? null,
      response,
    });
  }
  const globalErrors: Record<string, string> = {};
  const fromSuite = extra.params === undefined && cluster?.params !== undefined;
  const paramObjects =
    extra.params ??
    (cluster?.params !== undefined
      ? (
          (given) => () =>
            given
        )(cluster.params)
      : undefined);
  const engine = createOfflineEngine({
    apiCalls,
    globalEntries,
    globalErrors,
    ...(cluster !== undefined ? { resources: cluster.resources, images: cluster.images } : {}),
    ...(extra.registry !== undefined ? { registry: extra.registry } : {}),
    ...(paramObjects !== undefined ? { params: paramObjects, bindingParams: fromSuite } : {}),
    ...(extra.bindingParams !== undefined ? { bindingParamObjects: extra.bindingParams } : {}),
    ...(extra.apiCallObjects !== undefined ? { apiCallObjects: extra.apiCallObjects } : {}),
    ...crdsOf(extra.crds ?? cluster?.crds),
    // Kyverno's test runs with `Cluster: true` when the test file gives clusterResources (commands/test/test.go).
    ...((spec?.clusterResources.length ?? 0) > 0 ? { clusterGiven: true } : {}),
    onWarning: warnOnce(),
  });
  // The entries' fieldPath and projections are JMESPath in Kyverno's dialect: the engine's own.
  const globals = evaluateGlobalMocks(cluster?.globals ?? [], (expression) => {
    const compiled = engine.env.jmespath.compile(expression);
    return (data) => compiled.search(data, engine.env.fnctx);
  });
  Object.assign(globalEntries, globals.values);
  Object.assign(globalErrors, globals.errors);
  return engine;
}

/** The CRDs to type custom resources with, as an engine option (none: the built-in kinds only). */
function crdsOf(crds: readonly JsonObject[] | undefined): { crds?: readonly JsonObject[] } {
  return crds !== undefined ? { crds } : {};
}
