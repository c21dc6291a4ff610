/** cel-go ext.Encoders: `base64.encode(bytes)` and `base64.decode(string)` (padded or not). */
import { base64Decode, base64Encode } from "../../jmespath/functions/kyverno/base64.js";
import { utf8Encode } from "../../jmespath/functions/kyverno/go-text.js";
import { CelFunctionError, namespace, type CelLibrary } from "../library.js";

function decode(s: string): Uint8Array {
  const padded = s.length % 4 === 0 ? s : s + "=".repeat(4 - (s.length % 4));
  const out = base64Decode(utf8Encode(padded));
  if (typeof out === "string") throw new CelFunctionError(out);
  return out;
}

export function encoderLibrary(): CelLibrary {
  return {
    name: "ext.Encoders",
    ...namespace("base64", "bylaw.Base64Namespace"),
    functions: [
      {
        signature: "bylaw.Base64Namespace.encode(bytes): string",
        handler: (_: unknown, b: Uint8Array) => base64Encode(b),
      },
      { signature: "bylaw.Base64Namespace.decode(string): bytes", handler: (_: unknown, s: string) => decode(s) },
    ],
  };
}
