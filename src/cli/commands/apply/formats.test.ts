/** `bylaw apply --output-format text|summary|junit|sarif` through the CLI entry. */
import { existsSync } from "node:fs";
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";

const policies = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: require-team
  annotations:
    policies.kyverno.io/title: Require a team label
    policies.kyverno.io/description: Every Pod names its team.
spec:
  validationFailureAction: Enforce
  rules:
    - name: check-team
      match: {any: [{resources: {kinds: [Pod]}}]}
      validate:
        message: "Add metadata.labels.team."
        pattern: {metadata: {labels: {team: "?*"}}}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: no-latest}
spec:
  rules:
    - name: tag
      match: {any: [{resources: {kinds: [Pod]}}]}
      validate:
        message: "Pin the image tag."
        pattern: {spec: {containers: [{image: "!*:latest"}]}}
`;
const pods = `# a comment first
apiVersion: v1
kind: Pod
metadata: {name: good, namespace: shop, labels: {team: a}}
spec: {containers: [{name: c, image: "nginx:1"}]}
---
apiVersion: v1
kind: Pod
metadata: {name: bad, namespace: shop}
spec: {containers: [{name: c, image: "nginx:latest"}]}
`;

async function run(format: string, dir = tempTree({ "p.yaml": policies, "pods.yaml": pods })) {
  const io = recordingIo();
  const code = await main(["apply", join(dir, "p.yaml"), "-r", join(dir, "pods.yaml"), "--output-format", format], io);
  return { code, out: io.stdout.join("\n"), dir };
}

describe("bylaw apply output formats", () => {
  test("text (the default): kyverno apply's layout, byte for byte", async () => {
    const { code, out, dir } = await run("text");
    assert.equal(code, 1);
    assert.equal(
      `${out}\n`,
      [
        "",
        "Applying 6 policy rule(s) to 2 resource(s)...",
        "policy require-team -> resource shop/Pod/bad failed:",
        "1 - check-team validation error: Add metadata.labels.team. rule check-team failed at path /metadata/labels/",
        "policy no-latest -> resource shop/Pod/bad failed:",
        "1 - tag validation error: Pin the image tag. rule tag failed at path /spec/containers/0/image/",
        "",
        "pass: 2, fail: 2, warn: 0, error: 0, skip: 0 ",
        "",
      ].join("\n"),
    );
    const io = recordingIo();
    await main(["apply", join(dir, "p.yaml"), "-r", join(dir, "pods.yaml")], io);
    assert.equal(io.stdout.join("\n"), out, "text is the default");
    assert.equal((await run("table", dir)).out, out, "table is kept as another name for text");
    assert.equal((await run("yaml", dir)).out, out, "and so is yaml, kyverno apply's default --output-format");
  });

  test("summary: Bylaw's own; the failing resource, its rules with action and message, and the totals", async () => {
    const { code, out } = await run("summary");
    assert.equal(code, 1);
    assert.match(
      out,
      /^Pod\/shop\/bad {2}\(.*pods\.yaml:7\)\n {2}FAIL {3}no-latest\/tag {2}\[Audit\]\n {9}validation error: Pin the image tag\. .*\n {2}FAIL {3}require-team\/check-team {2}\[Enforce\]\n {9}validation error: Add metadata\.labels\.team\./,
    );
    assert.doesNotMatch(out, /Pod\/shop\/good/);
    assert.match(
      out,
      /Applied 2 policies to 2 resources: 1 resource with findings\.\npass: 2, fail: 2, warn: 0, error: 0, skip: 0 $/,
    );
  });

  test("--output junit and --output sarif name the formats (as CI docs write them)", async () => {
    const dir = tempTree({ "p.yaml": policies, "pods.yaml": pods });
    for (const format of ["junit", "sarif"]) {
      const io = recordingIo();
      const code = await main(["apply", join(dir, "p.yaml"), "-r", join(dir, "pods.yaml"), "--output", format], io);
      assert.equal(code, 1);
      assert.equal(io.stdout.join("\n"), (await run(format, dir)).out);
      assert.equal(existsSync(format), false, "no file or folder is written");
    }
  });

  test("junit: a testsuite per policy with counts, and the exit code unchanged", async () => {
    const { code, out } = await run("junit");
    assert.equal(code, 1);
    assert.match(
      out,
      /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="bylaw apply" tests="4" failures="2" errors="0" skipped="0">/,
    );
    assert.match(out, /<testsuite name="no-latest" tests="2" failures="1"/);
    assert.match(out, /<testsuite name="require-team" tests="2" failures="1"/);
  });

  test("sarif: Enforce failure is an error, Audit failure a warning, at the file and the document's first line", async () => {
    const { code, out, dir } = await run("sarif");
    assert.equal(code, 1);
    const sarif = JSON.parse(out) as {
      version: string;
      runs: {
        tool: { driver: { name: string; rules: { id: string; shortDescription: { text: string } }[] } };
        results: {
          ruleId: string;
          level: string;
          locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }[];
        }[];
      }[];
    };
    assert.equal(sarif.version, "2.1.0");
    const run0 = sarif.runs[0];
    assert.equal(run0?.tool.driver.name, "bylaw");
    assert.equal(
      run0?.tool.driver.rules.find((r) => r.id === "require-team/check-team")?.shortDescription.text,
      "Require a team label (rule check-team)",
    );
    assert.deepEqual(
      run0?.results.map((r) => [r.ruleId, r.level]),
      [
        ["require-team/check-team", "error"],
        ["no-latest/tag", "warning"],
      ],
    );
    const where = run0?.results[1]?.locations[0]?.physicalLocation;
    assert.equal(
      where?.artifactLocation.uri,
      pathToFileURL(join(dir, "pods.yaml")).href,
      "a file outside the working folder gets an absolute URI",
    );
    assert.equal(where?.region.startLine, 7);
  });

  test("an unknown format is a usage error that names the formats", async () => {
    const { code } = await run("xml");
    assert.equal(code, 2);
    const io = recordingIo();
    await main(["apply", "p.yaml", "-r", "r.yaml", "--output-format", "xml"], io);
    assert.match(
      io.stderr.join("\n"),
      /--output-format must be one of text, summary, json, junit, sarif \(got "xml"\)/,
    );
  });

  test("--help teaches sets, enforce, junit, sarif and exceptions", async () => {
    const io = recordingIo();
    assert.equal(await main(["apply", "--help"], io), 0);
    const help = io.stdout.join("\n");
    for (const example of [
      "--policy-set pss-restricted -r manifests/",
      "--enforce -r manifests/",
      "--output-format junit",
      "--output-format sarif",
      "-e exceptions/",
      "BYLAW_POLICY_SETS_DIR",
    ])
      assert.ok(help.includes(example), example);
  });
});
