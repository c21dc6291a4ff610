import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { kyvernoFunctions } from "./index.js";

/** The names Kyverno v1.19 registers (`GetFunctions`). */
const KYVERNO_NAMES = [
  "compare",
  "equal_fold",
  "replace",
  "replace_all",
  "to_upper",
  "to_lower",
  "trim",
  "trim_prefix",
  "split",
  "regex_replace_all",
  "regex_replace_all_literal",
  "regex_match",
  "pattern_match",
  "label_match",
  "to_boolean",
  "add",
  "sum",
  "subtract",
  "multiply",
  "divide",
  "modulo",
  "round",
  "base64_decode",
  "base64_encode",
  "time_since",
  "time_now",
  "time_now_utc",
  "path_canonicalize",
  "truncate",
  "semver_compare",
  "parse_json",
  "parse_yaml",
  "lookup",
  "items",
  "object_from_lists",
  "random",
  "x509_decode",
  "time_to_cron",
  "time_add",
  "time_parse",
  "time_utc",
  "time_diff",
  "time_before",
  "time_after",
  "time_between",
  "time_truncate",
  "image_normalize",
  "sha256",
  "sha1",
  "md5",
  "is_external_url",
];

describe("kyvernoFunctions", () => {
  const defs = kyvernoFunctions();

  test("registers exactly Kyverno's 51 functions, once each", () => {
    assert.equal(KYVERNO_NAMES.length, 51);
    assert.deepEqual([...defs.map((d) => d.name)].sort(), [...KYVERNO_NAMES].sort());
  });

  test("every function has a one-line description and typed arguments", () => {
    for (const d of defs) {
      assert.ok(d.description.length > 0 && !d.description.includes("\n"), d.name);
      for (const a of d.args) assert.ok(a.types.length > 0, d.name);
    }
  });

  test("time_now and time_now_utc take no arguments; the arithmetic functions take any", () => {
    const byName = new Map(defs.map((d) => [d.name, d]));
    assert.equal(byName.get("time_now")?.args.length, 0);
    assert.deepEqual(
      byName.get("add")?.args.map((a) => a.types),
      [["any"], ["any"]],
    );
    assert.deepEqual(
      byName.get("sum")?.args.map((a) => a.types),
      [["array"]],
    );
    assert.equal(byName.get("split")?.returns, "array[string]");
  });
});
