/**
 * Every flag of `kyverno apply --help` and `kyverno test --help` at v1.19.0 (Kyverno's CLI reference) is
 * either run by Bylaw or refused by name: never an unknown flag, never silently ignored.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../main.js";
import { parseApplyArgs } from "./options.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";
import { policyFixture } from "../../../../test/support/policy-fixtures.js";

/** kyverno apply's flags (v1.19), each with the arguments a script would pass. */
const APPLY_FLAGS: readonly (readonly string[])[] = [
  ["--audit-warn"],
  ["--batch-size", "10"],
  ["-c"],
  ["--cluster"],
  ["--cluster-wide-resources"],
  ["--concurrent", "2"],
  ["--cluster", "--context", "kind"],
  ["--context-file", "ctx.yaml"],
  ["--continue-on-error"],
  ["--continue-on-fail"],
  ["--crd-paths", "crds/"],
  ["--detailed-results"],
  ["-e", "ex.yaml"],
  ["--exception", "ex.yaml"],
  ["--exceptions", "ex.yaml"],
  ["--exceptions-with-resources"],
  ["--exceptions-within-policies"],
  ["--exceptions-within-resources"],
  ["--generate-exceptions"],
  ["--generated-exception-ttl", "24h"],
  ["-b", "main"],
  ["--git-branch", "main"],
  ["-h"],
  ["--help"],
  ["--http-payload", "req.json"],
  ["--envoy-payload", "req.json"],
  ["--json", "payload.json"],
  ["--cluster", "--kubeconfig", "kube.yaml"],
  ["--cluster", "-n", "default"],
  ["--cluster", "--namespace", "default"],
  ["-o", "out.yaml"],
  ["--output", "out/"],
  ["--output-format", "yaml"],
  ["--output-format", "json"],
  ["--parameter-resource", "params.yaml"],
  ["--password", "secret"],
  ["-p"],
  ["--policy-report"],
  ["--registry"],
  ["--remove-color"],
  ["-r", "r.yaml"],
  ["--resource", "r.yaml"],
  ["--resources", "r.yaml"],
  ["-s", "a=b,c=d"],
  ["--set", "a=b"],
  ["--show-performance"],
  ["-i"],
  ["--stdin"],
  ["-t"],
  ["--table"],
  ["--target-resource", "t.yaml"],
  ["--target-resources", "targets/"],
  ["-u", "user.yaml"],
  ["--userinfo", "user.yaml"],
  ["--username", "me"],
  ["-f", "values.yaml"],
  ["--values-file", "values.yaml"],
  ["--warn-exit-code", "3"],
  ["--warn-no-pass"],
];

/** kyverno test's flags (v1.19). */
const TEST_FLAGS: readonly (readonly string[])[] = [
  ["--detailed-results"],
  ["--fail-only"],
  ["-f", "kyverno-test.yaml"],
  ["--file-name", "kyverno-test.yaml"],
  ["-b", "main"],
  ["--git-branch", "main"],
  ["-h"],
  ["--help"],
  ["-o", "json"],
  ["--output-format", "yaml"],
  ["--output-format", "markdown"],
  ["--output-format", "junit"],
  ["--registry"],
  ["--remove-color"],
  ["--require-tests"],
  ["-t", "policy=*"],
  ["--test-case-selector", "policy=*,rule=*,resource=*"],
];

const flagName = (args: readonly string[]) =>
  args.find((a) => a.startsWith("-") && !["--cluster"].includes(a)) ?? args[0] ?? "";

describe("kyverno apply's flags (v1.19): each is run or refused by name", () => {
  for (const args of APPLY_FLAGS) {
    test(args.join(" "), () => {
      const parsed = parseApplyArgs(["policy.yaml", "-r", "r.yaml", ...args]);
      if (parsed.kind !== "usage-error") return;
      assert.doesNotMatch(parsed.message, /unknown (option|flag)/i);
      const long = flagName(args);
      assert.ok(parsed.message.includes(long.replace(/^-b$/, "--git-branch")), `${parsed.message} names ${long}`);
    });
  }
});

describe("kyverno test's flags (v1.19): each is run or refused by name", () => {
  const dir = tempTree({
    "s/policy.yaml": policyFixture("require-team"),
    "s/resources.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: good, labels: {team: a}}\n",
    "s/kyverno-test.yaml": `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: suite}
policies: [policy.yaml]
resources: [resources.yaml]
results:
- {policy: require-team, rule: check-team, resources: [good], kind: Pod, result: pass}
`,
  });
  for (const args of TEST_FLAGS) {
    test(args.join(" "), async () => {
      const io = recordingIo();
      const code = await main(["test", join(dir, "s"), ...args], io);
      const err = io.stderr.join("\n");
      assert.doesNotMatch(err, /unknown (option|flag)/i);
      if (code === 2) {
        const long = flagName(args);
        assert.ok(err.includes(long.replace(/^-b$/, "--git-branch")), `${err} names ${long}`);
      } else assert.equal(code, 0, err);
    });
  }
});
