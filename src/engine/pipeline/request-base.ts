/** The JSON context every rule of a request starts from, and the operation it really carries. */
import type { JsonObject } from "../api/json.js";
import { exceedsDepth } from "../api/json-depth.js";
import type { Operation } from "../api/resource.js";
import { buildRequestContext, setDotted } from "../context/request-context.js";
import type { EngineRequest } from "./types.js";

export interface RequestBase {
  readonly base: JsonObject;
  readonly operation: Operation;
  /** The object or old object is nested deeper than the engine evaluates. */
  readonly tooDeep: boolean;
}

/**
 * The request's base context, once per request: a caller that evaluates many policies against the
 * same EngineRequest object (the webhook) builds the context, image data and depth check once.
 */
export function requestBase(request: EngineRequest, memo?: WeakMap<EngineRequest, RequestBase>): RequestBase {
  const hit = memo?.get(request);
  if (hit !== undefined) return hit;
  const built = buildBase(request);
  memo?.set(request, built);
  return built;
}

function buildBase(request: EngineRequest): RequestBase {
  let base: JsonObject = buildRequestContext(request);
  for (const [k, v] of Object.entries(request.variables ?? {})) base = setDotted(base, k, v);
  return { base, operation: operationOf(base) ?? request.operation, tooDeep: exceedsDepth(request.resource) || exceedsDepth(request.oldResource) };
}

function operationOf(ctx: JsonObject): Operation | undefined {
  const req = ctx["request"];
  const op = typeof req === "object" && req !== null && !Array.isArray(req) ? req["operation"] : undefined;
  return op === "CREATE" || op === "UPDATE" || op === "DELETE" || op === "CONNECT" ? op : undefined;
}
