/**
 * How a pattern key reads its value from a resource map, chosen once when the pattern compiles.
 * A JSON map holds no `undefined` values, so `undefined` means the key is absent. Only a key that
 * objects inherit (`constructor`, `toString`, …) needs the `hasOwn` check, so that an inherited
 * property never counts as a key; any other key is read directly, which is several times cheaper.
 */
import type { JsonObject, JsonValue } from "../api/json.js";

export type OwnReader = (map: JsonObject) => JsonValue | undefined;

export function ownReader(key: string): OwnReader {
  if (key in Object.prototype) return (map) => (Object.hasOwn(map, key) ? map[key] : undefined);
  return (map) => map[key];
}
