/**
 * Engine ports for verifyImages tests: node:crypto signature checks, and a registry port answered
 * by `answer` (a table in the test), recording every image data request in `asked`.
 */
import type { EnginePorts, ImageDataRequest, JsonValue, Result } from "../../src/engine/index.js";
import { nodeSignatures } from "../../src/platform/node-ports.js";
import { fakePorts } from "./fake-ports.js";

export function imagePorts(
  answer: (reference: string, request: ImageDataRequest | undefined) => Result<JsonValue>,
  asked: ImageDataRequest[] = [],
  nowMillis?: number,
): EnginePorts {
  const base = fakePorts({}, nowMillis);
  return {
    ...base,
    signatures: nodeSignatures,
    context: {
      ...base.context,
      imageData: (reference: string, request?: ImageDataRequest) => {
        if (request !== undefined) asked.push(request);
        return answer(reference, request);
      },
    },
  };
}
