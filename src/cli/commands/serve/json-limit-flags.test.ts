import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_JSON_LIMITS } from "../../../server/http/index.js";
import { jsonLimitsFrom } from "./json-limit-flags.js";

test("the JSON limit flags: defaults, given values, and a refusal naming the flag", () => {
  assert.deepEqual(jsonLimitsFrom({}), { ok: true, value: DEFAULT_JSON_LIMITS });
  assert.deepEqual(jsonLimitsFrom({ "max-json-depth": "64", "max-json-entries": "10", "max-json-values": "1000" }), {
    ok: true,
    value: { maxDepth: 64, maxEntries: 10, maxValues: 1000 },
  });
  for (const bad of ["0", "-1", "1.5", "", "lots"])
    assert.deepEqual(jsonLimitsFrom({ "max-json-entries": bad }), {
      ok: false,
      error: `--max-json-entries must be a positive whole number (got ${JSON.stringify(bad)})`,
    });
});
