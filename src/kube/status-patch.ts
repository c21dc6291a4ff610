/** A merge patch to an object's status subresource; the API server's answer is the object as stored. */
import type { JsonObject, JsonValue } from "../engine/index.js";
import type { KubeClient } from "./kube-client.js";

export async function patchStatus(
  client: Pick<KubeClient, "sendJson">,
  path: string,
  patch: JsonObject,
): Promise<{ status?: JsonValue }> {
  return (await client.sendJson("PATCH", path, patch, { contentType: "application/merge-patch+json" })) as {
    status?: JsonValue;
  };
}
