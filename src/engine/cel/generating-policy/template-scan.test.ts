import { test } from "node:test";
import assert from "node:assert/strict";
import { hasPlaceholder, scanPlaceholders } from "./template-scan.js";

test("a scalar splits into text and trimmed placeholders; parentheses nest and string literals are skipped", () => {
  assert.deepEqual(scanPlaceholders("team-(( object.metadata.name ))-x"), {
    ok: true,
    parts: [{ text: "team-" }, { expression: "object.metadata.name" }, { text: "-x" }],
  });
  assert.deepEqual(scanPlaceholders("(( string(size(x)) ))"), { ok: true, parts: [{ expression: "string(size(x))" }] });
  assert.deepEqual(scanPlaceholders(`(( "))".size() ))`), { ok: true, parts: [{ expression: `"))".size()` }] });
  assert.deepEqual(scanPlaceholders(`(( 'it\\'s' ))`), { ok: true, parts: [{ expression: `'it\\'s'` }] });
});

test("\\(( writes a literal ((, and is not a placeholder", () => {
  assert.deepEqual(scanPlaceholders("a \\((b)) c"), { ok: true, parts: [{ text: "a ((b)) c" }] });
  assert.equal(hasPlaceholder("a \\((b))"), false);
  assert.equal(hasPlaceholder("a ((b))"), true);
});

test("a malformed placeholder says what is wrong and where it starts", () => {
  assert.deepEqual(scanPlaceholders("x (( a"), {
    ok: false,
    message: "unterminated placeholder starting at offset 2: missing closing '))'",
  });
  assert.deepEqual(scanPlaceholders("(( a) ))"), {
    ok: false,
    message: "unbalanced parenthesis in placeholder starting at offset 0",
  });
  assert.deepEqual(scanPlaceholders("((  ))"), { ok: false, message: "empty placeholder at offset 0" });
  assert.deepEqual(scanPlaceholders(`(( "abc ))`), {
    ok: false,
    message: "unterminated string literal in placeholder starting at offset 0",
  });
});
