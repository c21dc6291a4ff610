/** A resource document's objects: a `kind: List` (as `kubectl get -o yaml` prints) holds them in `items`. */
import { isObject, type JsonObject, type Resource } from "../engine/index.js";

export function expandList(doc: JsonObject): Resource[] {
  if (doc["kind"] === "List" && Array.isArray(doc["items"])) return doc["items"].filter(isObject);
  return [doc];
}
