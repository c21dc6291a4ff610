/** The JSON context every rule of a request starts from, and the operation it really carries. */
import type { JsonObject } from "../api/json.js";
import type { Operation } from "../api/resource.js";
import { buildRequestContext, setDotted } from "../context/request-context.js";
import type { EngineRequest } from "./types.js";

export function requestBase(request: EngineRequest): { readonly base: JsonObject; readonly operation: Operation } {
  let base: JsonObject = buildRequestContext(request);
  for (const [k, v] of Object.entries(request.variables ?? {})) base = setDotted(base, k, v);
  return { base, operation: operationOf(base) ?? request.operation };
}

function operationOf(ctx: JsonObject): Operation | undefined {
  const req = ctx["request"];
  const op = typeof req === "object" && req !== null && !Array.isArray(req) ? req["operation"] : undefined;
  return op === "CREATE" || op === "UPDATE" || op === "DELETE" || op === "CONNECT" ? op : undefined;
}
