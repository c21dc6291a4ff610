/** `bylaw apply`: results, exit codes, output formats, and bad input. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "yaml";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";

const policy = (action: string) => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: require-team
spec:
  validationFailureAction: ${action}
  rules:
    - name: check-team
      match:
        any:
          - resources:
              kinds: [Pod]
      validate:
        message: team label required
        pattern:
          metadata:
            labels:
              team: "?*"
`;
const goodPod = `apiVersion: v1
kind: Pod
metadata: {name: good, namespace: shop, labels: {team: a}}
spec: {containers: [{name: c, image: nginx:1}]}
`;
const badPod = goodPod.replace("name: good", "name: bad").replace("labels: {team: a}", "labels: {}");

describe("bylaw apply", () => {
  test("exit 0 and a pass count when every resource passes", async () => {
    const dir = tempTree({ "p.yaml": policy("Enforce"), "r.yaml": goodPod });
    const io = recordingIo();
    assert.equal(await main(["apply", join(dir, "p.yaml"), "-r", join(dir, "r.yaml")], io), 0);
    assert.match(io.stdout.join("\n"), /pass: 1, fail: 0, warn: 0, error: 0, skip: 0/);
  });

  test("exit 1 and the failing rule's message when a rule fails", async () => {
    const dir = tempTree({ "p.yaml": policy("Enforce"), "r.yaml": `${goodPod}---\n${badPod}` });
    const io = recordingIo();
    assert.equal(await main(["apply", join(dir, "p.yaml"), "-r", join(dir, "r.yaml")], io), 1);
    const out = io.stdout.join("\n");
    assert.match(
      out,
      /\npolicy require-team -> resource shop\/Pod\/bad failed:\n1 - check-team validation error: team label required\. rule check-team failed at path \/metadata\/labels\/team\/\n/,
    );
  });

  test("--audit-warn turns Audit failures into warnings and exit 0", async () => {
    const dir = tempTree({ "p.yaml": policy("Audit"), "r.yaml": badPod });
    const io = recordingIo();
    assert.equal(await main(["apply", join(dir, "p.yaml"), "-r", join(dir, "r.yaml"), "--audit-warn"], io), 0);
    assert.match(io.stdout.join("\n"), /pass: 0, fail: 0, warn: 1/);
  });

  test("--output json prints the summary and one entry per rule result", async () => {
    const dir = tempTree({ "p.yaml": policy("Enforce"), "r.yaml": `${goodPod}---\n${badPod}` });
    const io = recordingIo();
    await main(["apply", join(dir, "p.yaml"), "-r", join(dir, "r.yaml"), "-o", "json"], io);
    const parsed = JSON.parse(io.stdout.join("\n")) as {
      summary: Record<string, number>;
      results: { resource: string; result: string }[];
    };
    assert.deepEqual(parsed.summary, { pass: 1, fail: 1, warn: 0, error: 0, skip: 0 });
    assert.deepEqual(
      parsed.results.map((r) => [r.resource, r.result]),
      [
        ["Pod/shop/good", "pass"],
        ["Pod/shop/bad", "fail"],
      ],
    );
  });

  test("--policy-report --report-api wgpolicyk8s prints a PolicyReport per namespace with a summary", async () => {
    const dir = tempTree({ "p.yaml": policy("Enforce"), "r.yaml": `${goodPod}---\n${badPod}` });
    const io = recordingIo();
    await main(["apply", join(dir, "p.yaml"), "-r", join(dir, "r.yaml"), "-p", "--report-api", "wgpolicyk8s"], io);
    const report = parse(io.stdout.join("\n")) as {
      kind: string;
      metadata: { namespace: string };
      summary: Record<string, number>;
      results: { policy: string; result: string }[];
    };
    assert.equal(report.kind, "PolicyReport");
    assert.equal(report.metadata.namespace, "shop");
    assert.deepEqual(report.summary, { pass: 1, fail: 1, warn: 0, error: 0, skip: 0 });
    assert.equal(report.results[0]?.policy, "require-team");
  });

  test("resources from stdin", async () => {
    const dir = tempTree({ "p.yaml": policy("Enforce") });
    const io = recordingIo(badPod);
    assert.equal(await main(["apply", join(dir, "p.yaml"), "-r", "-"], io), 1);
  });

  test("a YAML syntax error fails the run (exit 2) naming file and document; the other documents still run", async () => {
    const dir = tempTree({ "p.yaml": `${policy("Enforce")}---\nkind: [unclosed\n`, "r.yaml": goodPod });
    const io = recordingIo();
    const code = await main(["apply", join(dir, "p.yaml"), "-r", join(dir, "r.yaml")], io);
    assert.match(io.stderr.join("\n"), /^error: .*p\.yaml: document 2/m);
    assert.match(io.stdout.join("\n"), /pass: 1/);
    assert.equal(code, 2);
  });

  test("a misspelled rule key fails the run (exit 2) naming file, document and field", async () => {
    const dir = tempTree({ "p.yaml": policy("Enforce").replace("match:", "matchx:"), "r.yaml": goodPod });
    const io = recordingIo();
    assert.equal(await main(["apply", join(dir, "p.yaml"), "-r", join(dir, "r.yaml")], io), 2);
    assert.match(
      io.stderr.join("\n"),
      /^error: .*p\.yaml: document 1 \(line 1\): invalid policy require-team: .*spec\.rules\[0\]\.matchx: field not declared in schema; did you mean "match"\?/m,
    );
  });

  test("a missing resource path exits 2 and names the path", async () => {
    const dir = tempTree({ "p.yaml": policy("Enforce") });
    const io = recordingIo();
    assert.equal(await main(["apply", join(dir, "p.yaml"), "-r", join(dir, "nope.yaml")], io), 2);
    assert.match(io.stderr.join("\n"), /no such file or directory: .*nope\.yaml/);
  });

  test("usage errors exit 2 with one line and a hint to the help", async () => {
    const io = recordingIo();
    assert.equal(await main(["apply"], io), 2);
    assert.match(
      io.stderr.join("\n"),
      /^bylaw apply: give at least one POLICY.*\nRun `bylaw apply --help` for usage\.$/,
    );
  });
});
