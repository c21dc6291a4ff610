/**
 * The CLI's shared conventions (issue 20): one-line usage errors with a hint, exit codes in every
 * --help (3 included), one flag name across commands (test -o/--output-format, as kyverno test),
 * --set for values, and error messages that say how to supply data offline.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "./main.js";
import { recordingIo } from "../../test/support/fake-io.js";
import { tempTree } from "../../test/support/temp-dir.js";

const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: team}
spec:
  rules:
    - name: team
      match: {any: [{resources: {kinds: [Pod]}}]}
      context:
        - name: team
          # No ConfigMap is among the resources given: --set gives the value.
          apiCall: {urlPath: "/api/v1/namespaces/default/configmaps/team", jmesPath: "data.team"}
      validate:
        deny: {conditions: {any: [{key: "{{ team }}", operator: NotEquals, value: blue}]}}
    - name: count
      match: {any: [{resources: {kinds: [Pod]}}]}
      context:
        - name: pods
          # No ReplicaSet is among the resources given, so nothing answers this offline.
          apiCall: {urlPath: "/apis/apps/v1/namespaces/default/replicasets", jmesPath: "items | length(@)"}
      validate:
        deny: {conditions: {any: [{key: "{{ pods }}", operator: GreaterThan, value: 10}]}}
    - name: clone
      match: {any: [{resources: {kinds: [Namespace]}}]}
      generate: {apiVersion: v1, kind: Secret, name: reg, namespace: "{{request.object.metadata.name}}", clone: {namespace: default, name: reg}}
`;
const resources = `apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec: {containers: [{name: c, image: i}]}
---
apiVersion: v1
kind: Namespace
metadata: {name: ns1}
`;

async function run(args: string[]) {
  const io = recordingIo();
  const code = await main(args, io);
  return { code, out: io.stdout.join("\n"), err: io.stderr.join("\n") };
}

describe("usage errors", () => {
  test("an unknown command is one line and a hint, exit 2", async () => {
    const r = await run(["aply"]);
    assert.equal(r.code, 2);
    assert.deepEqual(r.err.split("\n"), ['bylaw: unknown command "aply"', "Run `bylaw --help` for the commands."]);
  });
  test("an unknown flag or a missing input is one line and a hint, never the whole help", async () => {
    for (const args of [
      ["apply", "p.yaml", "-r", "x.yaml", "--bogus"],
      ["apply", "p.yaml"],
      ["test", "--bogus"],
      ["test", ".", "-o", "xml"],
    ]) {
      const r = await run(args);
      assert.equal(r.code, 2, args.join(" "));
      const lines = r.err.split("\n");
      assert.equal(lines.length, 2, r.err);
      assert.match(lines[1] ?? "", /^Run `bylaw (apply|test) --help` for usage\.$/);
      assert.doesNotMatch(r.err, /Usage:/);
    }
  });
  test("a flag mistake is said plainly: the unknown flag, the flag that needs a value, the switch given one", async () => {
    const cases: [string[], string][] = [
      [["apply", "p.yaml", "-r", "x.yaml", "--bogus"], "bylaw apply: unknown flag --bogus"],
      [["create", "test", "-u", "me"], "bylaw create test: unknown flag -u"],
      [["apply", "p.yaml", "-r"], "bylaw apply: -r, --resource needs a value"],
      [["test", ".", "--detailed-results=yes"], "bylaw test: --detailed-results takes no value"],
    ];
    for (const [args, line] of cases) {
      const r = await run(args);
      assert.equal(r.code, 2, args.join(" "));
      assert.equal(r.err.split("\n")[0], line);
    }
  });
});

describe("--help documents every exit code, 3 included", () => {
  const all = ["0", "1", "2", "3"];
  const cases: [string[], string[]][] = [
    [[], all],
    [["apply"], all],
    [["test"], all],
    [["jp"], all],
    [["cel"], all],
    [["serve"], ["0", "2", "3"]],
    [["policy-sets"], ["0", "2", "3"]],
    [["create"], ["0", "2", "3"]],
    [
      ["create", "test"],
      ["0", "2", "3"],
    ],
    [["fix"], all],
    [["docs"], all],
    [["completion"], ["0", "2", "3"]],
  ];
  for (const [cmd, codes] of cases) {
    test(`bylaw ${cmd.join(" ") || "(main)"} --help`, async () => {
      const r = await run([...cmd, "--help"]);
      assert.equal(r.code, 0);
      for (const code of codes)
        assert.match(r.out, new RegExp(`(^|\\s|;)${code}\\s+[a-z(]`, "m"), `exit code ${code} in ${cmd.join(" ")}`);
      assert.match(r.out, /3\s+internal error/);
    });
  }
});

describe("bylaw test -o / --output-format", () => {
  test("-o json and --output-format json print JSON; --output json still works, with a warning", async () => {
    const dir = tempTree({});
    for (const flags of [
      ["-o", "json"],
      ["--output-format", "json"],
      ["--output", "json"],
    ]) {
      const r = await run(["test", dir, ...flags]);
      assert.equal(r.code, 0, r.err);
      assert.doesNotThrow(() => JSON.parse(r.out === "" ? "[]" : r.out));
      assert.equal(/deprecated: use -o\/--output-format/.test(r.err), flags[0] === "--output", flags.join(" "));
    }
  });
});

describe("bylaw apply --set and offline hints", () => {
  test("--set key=value gives a variable", async () => {
    const dir = tempTree({ "p.yaml": policy, "r.yaml": resources });
    const without = await run(["apply", join(dir, "p.yaml"), "-r", join(dir, "r.yaml"), "--output-format", "json"]);
    const withSet = await run([
      "apply",
      join(dir, "p.yaml"),
      "-r",
      join(dir, "r.yaml"),
      "--output-format",
      "json",
      "--set",
      "team=blue",
      "-s",
      "pods=1",
    ]);
    const status = (out: string, rule: string) =>
      (JSON.parse(out) as { results: { rule: string; result: string }[] }).results.find((x) => x.rule === rule)?.result;
    assert.equal(status(without.out, "team"), "error");
    assert.equal(status(withSet.out, "team"), "pass");
    assert.equal(status(withSet.out, "count"), "pass");
  });
  test("a --set pair without '=' is a usage error", async () => {
    const dir = tempTree({ "p.yaml": policy, "r.yaml": resources });
    const r = await run(["apply", join(dir, "p.yaml"), "-r", join(dir, "r.yaml"), "--set", "team"]);
    assert.equal(r.code, 2);
    assert.match(r.err, /--set "team": expected key=value/);
  });
  test("an apiCall error says how to supply the data offline; a missing clone source names -t", async () => {
    const dir = tempTree({ "p.yaml": policy, "r.yaml": resources });
    // Bylaw's summary shows validate errors (kyverno apply's text, the default, only generate and mutate ones).
    const r = await run([
      "apply",
      join(dir, "p.yaml"),
      "-r",
      join(dir, "r.yaml"),
      "--set",
      "team=blue",
      "--output-format",
      "summary",
    ]);
    assert.equal(r.code, 1);
    assert.match(r.out, /--set pods=VALUE/);
    assert.match(r.out, /apiCallResponses/);
    assert.match(r.out, /-t\/--target-resource FILE/);
  });
});
