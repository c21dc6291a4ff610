/** A corpus request as another operation, for the cross products of the corpus tests. */
import type { EngineRequest, Operation } from "../../src/engine/index.js";

/** The request as `operation`; an UPDATE or DELETE keeps the request's old object, else takes its resource as the old one. */
export function asOperation(request: EngineRequest, operation: Operation): EngineRequest {
  if (operation === request.operation) return request;
  if (operation === "CREATE") return { ...request, operation };
  return { ...request, operation, oldResource: request.oldResource ?? request.resource };
}
