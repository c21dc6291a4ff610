/** A table runner for the built-in function tests. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../../src/engine/api/json.js";
import { errorOf, search } from "./jmespath-search.js";

/** [expression, data, expected value] or [expression, data, { error: message }]. */
export type Row = readonly [string, JsonValue, JsonValue | { readonly error: string; readonly kind?: string }];

function isErrorExpectation(v: Row[2]): v is { readonly error: string; readonly kind?: string } {
  return (
    typeof v === "object" &&
    v !== null &&
    !Array.isArray(v) &&
    typeof (v as { error?: unknown }).error === "string" &&
    Object.keys(v).every((k) => k === "error" || k === "kind")
  );
}

export function functionTable(name: string, rows: readonly Row[]): void {
  describe(name, () => {
    for (const [expression, data, expected] of rows) {
      test(`${expression} on ${JSON.stringify(data)}`, () => {
        if (isErrorExpectation(expected)) {
          const error = errorOf(expression, data);
          assert.ok(error !== undefined, "expected an error");
          assert.equal(error.message, expected.error);
          if (expected.kind !== undefined) assert.equal(error.kind, expected.kind);
        } else {
          assert.deepEqual(search(expression, data), expected);
        }
      });
    }
  });
}
