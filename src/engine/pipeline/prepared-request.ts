/**
 * One request, prepared once for every policy evaluated against it (`engine.prepare`): the
 * subject its rules match and check, the operation they see, the base JSON context they start
 * from, and the decisions of the matchers already asked about it. The caller's EngineRequest is
 * read, never written: everything worked out about it lives here, and lives as long as the caller
 * keeps this object (the webhook keeps one per review).
 */
import type { JsonObject } from "../api/json.js";
import { exceedsDepth } from "../api/json-depth.js";
import { requestSubject, type Operation, type Resource } from "../api/resource.js";
import { buildRequestContext } from "../context/request-context.js";
import { setVariable } from "../context/variable-key.js";
import type { CompiledPolicy } from "../policy/compiled-policy.js";
import type { SharedConditions } from "../variables/types.js";
import { matchContext, matchRequestFor, type MatchContext } from "./match-rule.js";
import type { EngineRequest } from "./types.js";

export class PreparedRequest {
  /** The request as the caller gave it. */
  readonly request: EngineRequest;
  /** What the rules match and check: `oldResource` for DELETE, else `resource` (api/resource.ts `requestSubject`). */
  readonly subject: Resource;
  #withImages: JsonObject | undefined = undefined;
  #withoutImages: JsonObject | undefined = undefined;
  #operation: Operation | undefined = undefined;
  #tooDeep: boolean | undefined = undefined;
  /** Match requests by policy namespace (ClusterPolicies: ""), each with its matchers' decisions. */
  readonly #matches = new Map<string, MatchContext>();
  /** Values an evaluator derives from this request once for all its rules (e.g. the CEL activation), by the evaluator's key. */
  readonly #derived = new Map<symbol, unknown>();
  #sharedWithImages: SharedConditions | undefined = undefined;
  #sharedWithoutImages: SharedConditions | undefined = undefined;

  constructor(request: EngineRequest) {
    this.request = request;
    this.subject = requestSubject(request);
  }

  /**
   * The context every rule starts from, built on first use. `images` is built only for policies
   * that mention it (`CompiledPolicy.usesImages`); the two forms are kept apart.
   */
  base(images: boolean): JsonObject {
    const hit = images ? this.#withImages : this.#withoutImages;
    if (hit !== undefined) return hit;
    const built = buildBase(this.request, images);
    if (images) this.#withImages = built;
    else this.#withoutImages = built;
    this.#operation ??= operationOf(built) ?? this.request.operation;
    return built;
  }

  /**
   * A value derived from this request alone, made on first use and kept with this prepared request
   * (never on the caller's object): `key` is the deriving evaluator's own symbol, always given the same `make`.
   */
  derived<T>(key: symbol, make: () => T): T {
    if (this.#derived.has(key)) return this.#derived.get(key) as T;
    const value = make();
    this.#derived.set(key, value);
    return value;
  }

  /**
   * The condition outcomes shared by the rules whose scope reads `data` (context/shared-conditions.ts),
   * when `data` is one of this request's base contexts; undefined for any other data (a mutate rule's
   * patched context, a rule's own values), whose outcomes are not shared.
   */
  sharedConditions(data: JsonObject): SharedConditions | undefined {
    if (data === this.#withoutImages)
      return (this.#sharedWithoutImages ??= { data, operation: this.operation, outcomes: new Map() });
    if (data === this.#withImages)
      return (this.#sharedWithImages ??= { data, operation: this.operation, outcomes: new Map() });
    return undefined;
  }

  /** The operation the rules see: `request.operation` of the base context (a variable may set it), else the request's. */
  get operation(): Operation {
    if (this.#operation === undefined) this.base(false);
    return this.#operation ?? this.request.operation;
  }

  /** The object or old object is nested deeper than the engine evaluates. */
  get tooDeep(): boolean {
    this.#tooDeep ??= exceedsDepth(this.request.resource) || exceedsDepth(this.request.oldResource);
    return this.#tooDeep;
  }

  /**
   * This request with `resource` as its object: itself while the object is the same one (a policy
   * that patched nothing), else a new preparation of the patched object.
   */
  withResource(resource: Resource): PreparedRequest {
    return resource === this.request.resource ? this : new PreparedRequest({ ...this.request, resource });
  }

  /** The match request of the subject for the policy's namespace, and its matchers' decisions so far. */
  matchContext(policy: CompiledPolicy): MatchContext {
    let ctx = this.#matches.get(policy.namespace);
    if (ctx === undefined) {
      ctx = matchContext(matchRequestFor(policy, this.subject, this));
      this.#matches.set(policy.namespace, ctx);
    }
    return ctx;
  }
}

/** The request prepared for evaluation; a prepared one is returned as it is. */
export function prepareRequest(request: EngineRequest | PreparedRequest): PreparedRequest {
  return request instanceof PreparedRequest ? request : new PreparedRequest(request);
}

function buildBase(request: EngineRequest, images: boolean): JsonObject {
  // A `request` variable (the webhook's whole AdmissionRequest) replaces the engine's own: it is
  // passed in rather than built and then overwritten.
  // Only when it comes first: later variables (`request.x`) are layered on it, as before.
  const vars = request.variables ?? {};
  const given = Object.keys(vars)[0] === "request" ? vars["request"] : undefined;
  const whole = typeof given === "object" && given !== null && !Array.isArray(given) ? given : undefined;
  let base: JsonObject = buildRequestContext(request, whole === undefined ? { images } : { images, request: whole });
  for (const [k, v] of Object.entries(vars)) if (whole === undefined || k !== "request") base = setVariable(base, k, v);
  return base;
}

function operationOf(ctx: JsonObject): Operation | undefined {
  const req = ctx["request"];
  const op = typeof req === "object" && req !== null && !Array.isArray(req) ? req["operation"] : undefined;
  return op === "CREATE" || op === "UPDATE" || op === "DELETE" || op === "CONNECT" ? op : undefined;
}
