/** The JSON context every rule of a request starts from, and the operation it really carries. */
import type { JsonObject } from "../api/json.js";
import { exceedsDepth } from "../api/json-depth.js";
import type { Operation } from "../api/resource.js";
import { buildRequestContext, setDotted } from "../context/request-context.js";
import type { MatchContext } from "./match-rule.js";
import type { EngineRequest } from "./types.js";

export interface RequestBase {
  readonly base: JsonObject;
  readonly operation: Operation;
  /** The object or old object is nested deeper than the engine evaluates. */
  readonly tooDeep: boolean;
  /** Validate's match requests for this request, by policy namespace (filled by validatePolicy). */
  readonly matchRequests: Map<string, MatchContext>;
}

interface Memo {
  /** With `images`, for policies that mention them; without, for the rest. */
  withImages?: RequestBase;
  withoutImages?: RequestBase;
}

/** What a request's memo holds; created by the engine (`createEngine`), one per engine. */
export type RequestMemo = WeakMap<EngineRequest, Memo>;

/**
 * The request's base context, once per request: a caller that evaluates many policies against the
 * same EngineRequest object (the webhook) builds the context, image data and depth check once.
 * `images` is built only for policies that mention it (`CompiledPolicy.usesImages`).
 */
export function requestBase(request: EngineRequest, memo: RequestMemo | undefined, images = true): RequestBase {
  let m = memo?.get(request);
  if (m === undefined) {
    m = {};
    memo?.set(request, m);
  }
  const hit = images ? m.withImages : m.withoutImages;
  if (hit !== undefined) return hit;
  const other = images ? m.withoutImages : m.withImages;
  const built = buildBase(request, images, other?.tooDeep);
  if (images) m.withImages = built;
  else m.withoutImages = built;
  return built;
}

function buildBase(request: EngineRequest, images: boolean, tooDeep: boolean | undefined): RequestBase {
  // A `request` variable (the webhook's whole AdmissionRequest) replaces the engine's own: it is
  // passed in rather than built and then overwritten.
  // Only when it comes first: later variables (`request.x`) are layered on it, as before.
  const vars = request.variables ?? {};
  const given = Object.keys(vars)[0] === "request" ? vars["request"] : undefined;
  const whole = typeof given === "object" && given !== null && !Array.isArray(given) ? given : undefined;
  let base: JsonObject = buildRequestContext(request, whole === undefined ? { images } : { images, request: whole });
  for (const [k, v] of Object.entries(vars)) if (whole === undefined || k !== "request") base = setDotted(base, k, v);
  return {
    base,
    operation: operationOf(base) ?? request.operation,
    tooDeep: tooDeep ?? (exceedsDepth(request.resource) || exceedsDepth(request.oldResource)),
    matchRequests: new Map<string, MatchContext>(),
  };
}

function operationOf(ctx: JsonObject): Operation | undefined {
  const req = ctx["request"];
  const op = typeof req === "object" && req !== null && !Array.isArray(req) ? req["operation"] : undefined;
  return op === "CREATE" || op === "UPDATE" || op === "DELETE" || op === "CONNECT" ? op : undefined;
}
