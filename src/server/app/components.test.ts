import { test } from "node:test";
import assert from "node:assert/strict";
import { COMPONENTS, componentElects, componentLease, isComponent } from "./components.js";

test("each component elects its leader on its own Lease; admission's is --leader-elect-lease", () => {
  // The monitoring component only reads and serves /metrics: it elects no leader.
  assert.equal(componentElects("monitoring"), false);
  const leases = COMPONENTS.filter((c) => c === "admission" || componentElects(c)).map((c) =>
    componentLease(c, "bylaw-admission"),
  );
  assert.deepEqual(leases, [
    "bylaw-admission",
    "bylaw-background-controller",
    "bylaw-reports-controller",
    "bylaw-cleanup-controller",
  ]);
  assert.equal(componentLease("admission", "my-lease"), "my-lease");
});

test("only the four components are components", () => {
  assert.ok(isComponent("cleanup"));
  assert.ok(!isComponent("generate"));
  assert.ok(!isComponent(""));
});
