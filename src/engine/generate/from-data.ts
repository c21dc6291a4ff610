/** `generate.data`: the object is the data body, named and placed by the rule. */
import { isObject } from "../api/json.js";
import type { Resource } from "../api/resource.js";
import { err, ok, type Result } from "../api/result.js";
import { describe } from "./read-generate.js";
import { withIdentity, type TargetRef } from "./target.js";
import type { GenerateSpec } from "./types.js";

export function buildFromData(spec: GenerateSpec, target: TargetRef, path: string): Result<Resource> {
  const data = spec.data;
  if (!isObject(data)) {
    const got = data === undefined ? "nothing" : describe(data);
    return err(
      "generate-data",
      `generate.data must be an object (the body of the ${target.kind} to generate), got ${got}`,
      `${path}.data`,
    );
  }
  const meta = data["metadata"];
  if (meta !== undefined && meta !== null && !isObject(meta)) {
    return err(
      "generate-data",
      `generate.data.metadata must be an object, got ${describe(meta)}`,
      `${path}.data.metadata`,
    );
  }
  return ok(withIdentity(target, isObject(meta) ? meta : {}, data));
}
