/**
 * Leaf values of the grammar, decoded as go-jmespath decodes them: backtick JSON literals
 * (Go's json.Unmarshal, deeply frozen so results cannot alter a compiled expression), integers
 * in `[n]` and slices (Go's strconv.Atoi), and field names.
 */
import type { JsonValue } from "../api/json.js";
import type { Node } from "./ast.js";
import { limitError, rawSyntaxError } from "./errors.js";
import { ExprRef } from "./eval-state.js";
import { goJsonUnmarshal, GoJsonDecodeError } from "../go/json-decode.js";
import { goQuote } from "../go/quote.js";
import type { Token } from "./tokens.js";

function deepFreeze(v: JsonValue): JsonValue {
  if (v !== null && typeof v === "object") {
    for (const child of Array.isArray(v) ? v : Object.values(v)) deepFreeze(child);
    Object.freeze(v);
  }
  return v;
}

/** A field node; `guarded` when the name also exists on a prototype (`toString`, `kind`...). */
export function fieldNode(name: string): Node {
  return { type: "Field", name, guarded: name in Object.prototype || name in ExprRef.prototype };
}

/** Decodes a backtick literal. Go's JSON errors are returned without a `SyntaxError:` prefix. */
export function decodeJsonLiteral(tok: Token, src: string, maxDepth: number): JsonValue {
  try {
    return deepFreeze(goJsonUnmarshal(tok.value, maxDepth));
  } catch (e) {
    if (!(e instanceof GoJsonDecodeError)) throw e;
    if (e.tooDeep) throw limitError(`JMESPath literal is nested deeper than ${maxDepth} levels`);
    throw rawSyntaxError(e.message, src, tok.position + e.offset);
  }
}

/** Go's strconv.Atoi on a number token (which may be a lone `-`). */
export function parseInteger(tok: Token, src: string): number {
  const text = tok.value;
  if (!/^[+-]?\d+$/.test(text)) {
    throw rawSyntaxError(`strconv.Atoi: parsing ${goQuote(text)}: invalid syntax`, src, tok.position);
  }
  const big = BigInt(text);
  if (big > 9223372036854775807n || big < -9223372036854775808n) {
    throw rawSyntaxError(`strconv.Atoi: parsing ${goQuote(text)}: value out of range`, src, tok.position);
  }
  return Number(big);
}
