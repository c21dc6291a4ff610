/** RFC 6902 JSON Patch operations, as Kyverno's `patchesJson6902` and the webhook response carry them. */
import type { JsonValue } from "../../api/json.js";

export type JsonPatchOpName = "add" | "remove" | "replace" | "move" | "copy" | "test";

export type JsonPatchOp = {
  op: JsonPatchOpName;
  /** A JSON pointer: "" (the whole document) or "/"-separated tokens with `~0`/`~1` escapes. */
  path: string;
  /** Required for add, replace and test; `null` is a value. */
  value?: JsonValue;
  /** Required for move and copy. */
  from?: string;
};

export const JSON_PATCH_OP_NAMES: readonly JsonPatchOpName[] = ["add", "remove", "replace", "move", "copy", "test"];

/** Every error message of this module starts with this, as the policy field it concerns. */
export const FIELD = "patchesJson6902";
