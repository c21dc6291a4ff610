/**
 * validate.manifests end to end through the CLI: `bylaw test` on test/fixtures/manifests (Deployments
 * signed with k8s-manifest-sigstore's annotations, a policy with the team's key inline) and
 * `bylaw apply` on the same files, with Kyverno's messages.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { tempTree } from "../support/temp-dir.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const bylaw = join(root, "bin", "bylaw.js");
const fixtures = join(root, "test", "fixtures", "manifests");
const run = (...args: string[]) => spawnSync(process.execPath, [bylaw, ...args], { encoding: "utf8" });

describe("validate.manifests through the CLI", () => {
  test("bylaw test: signed and scaled Deployments pass, tampered and unsigned fail, another key's signature errs", () => {
    const r = run("test", fixtures);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /Test Summary: 5 tests passed and 0 tests failed/);
  });

  test("bylaw test fails when a suite expects a tampered Deployment to pass", () => {
    const suite = readFileSync(join(fixtures, "kyverno-test.yaml"), "utf8").replace(
      "resources: [signed, scaled]",
      "resources: [signed, scaled, tampered]",
    );
    const dir = tempTree({
      "kyverno-test.yaml": suite,
      "policy.yaml": readFileSync(join(fixtures, "policy.yaml"), "utf8"),
      "resources.yaml": readFileSync(join(fixtures, "resources.yaml"), "utf8"),
    });
    const r = run("test", dir);
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /Deployment\/[^/│ ]*\/tampered\s*│\s*Fail/);
  });

  test("bylaw apply names the changed field, the missing signature and the failed signature check", () => {
    // Bylaw's summary: kyverno apply's text (the default) does not print a validate rule's error.
    const r = run(
      "apply",
      join(fixtures, "policy.yaml"),
      "-r",
      join(fixtures, "resources.yaml"),
      "--output-format",
      "summary",
    );
    assert.equal(r.status, 1, r.stderr);
    assert.match(
      r.stdout,
      /diff found; \{"items":\[\{"key":"spec\.template\.spec\.containers\.0\.image","values":\{"after":"evil\.example\.com\/nginx:1\.27","before":"nginx:1\.27"\}\}\]\}/,
    );
    assert.match(
      r.stdout,
      /Deployment\/default\/unsigned[^]*YAML manifest not found for this resource: message not found/,
    );
    assert.match(
      r.stdout,
      /ERROR\s+verify-deployment-manifests\/signed-by-team[^]*invalid signature when validating ASN\.1 encoded signature/,
    );
    assert.match(r.stdout, /pass: 2, fail: 2, warn: 0, error: 1, skip: 0/);
  });
});
