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

/**
 * Where a request keeps its memo: a non-enumerable property of the request object itself, so the
 * memo lives and dies with the request. (A WeakMap keyed by requests kept every young request and
 * its context alive through V8's young-generation collections, which cost time per webhook review;
 * figures: docs/adr/0004-appendix-figures-in-code.md.)
 */
const MEMO: unique symbol = Symbol("bylaw.requestBase");

type Memoized = EngineRequest & { [MEMO]?: Memo };

/** The request's memo, made on first use; undefined for a frozen request (it is then built each time). */
function memoOf(request: Memoized): Memo | undefined {
  const found = request[MEMO];
  if (found !== undefined || !Object.isExtensible(request)) return found;
  const m: Memo = {};
  Object.defineProperty(request, MEMO, { value: m, enumerable: false });
  return m;
}

/**
 * The request's base context, once per request: a caller that evaluates many policies against the
 * same EngineRequest object (the webhook) builds the context, image data and depth check once.
 * `images` is built only for policies that mention it (`CompiledPolicy.usesImages`).
 */
export function requestBase(request: EngineRequest, images = true): RequestBase {
  const m = memoOf(request) ?? {};
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
