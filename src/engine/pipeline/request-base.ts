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
  let base: JsonObject = buildRequestContext(request, { images });
  for (const [k, v] of Object.entries(request.variables ?? {})) base = setDotted(base, k, v);
  return { base, operation: operationOf(base) ?? request.operation, tooDeep: tooDeep ?? (exceedsDepth(request.resource) || exceedsDepth(request.oldResource)) };
}

function operationOf(ctx: JsonObject): Operation | undefined {
  const req = ctx["request"];
  const op = typeof req === "object" && req !== null && !Array.isArray(req) ? req["operation"] : undefined;
  return op === "CREATE" || op === "UPDATE" || op === "DELETE" || op === "CONNECT" ? op : undefined;
}
