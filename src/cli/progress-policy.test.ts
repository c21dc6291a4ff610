import { test } from "node:test";
import assert from "node:assert/strict";
import { isCi, progressAllowed } from "./progress-policy.js";

test("progress only on a terminal, for human output, outside CI", () => {
  assert.equal(progressAllowed({ stderrIsTty: true, env: {} }, "table"), true);
  assert.equal(progressAllowed({ stderrIsTty: false, env: {} }, "table"), false, "stderr piped to a file");
  for (const f of ["json", "junit", "sarif"])
    assert.equal(progressAllowed({ stderrIsTty: true, env: {} }, f), false, f);
  assert.equal(progressAllowed({ stderrIsTty: true, env: { CI: "true" } }, "text"), false);
});

test("CI is on for any value but empty, false and 0", () => {
  assert.equal(isCi({ CI: "true" }), true);
  assert.equal(isCi({ CI: "1" }), true);
  assert.equal(isCi({ CI: "woodpecker" }), true);
  assert.equal(isCi({ CI: "false" }), false);
  assert.equal(isCi({ CI: "0" }), false);
  assert.equal(isCi({ CI: "" }), false);
  assert.equal(isCi({}), false);
});
