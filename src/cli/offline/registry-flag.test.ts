/**
 * `--registry` (Kyverno's flag) for `bylaw apply` and `bylaw test`: imageRegistry context entries
 * and CEL `image.GetMetadata` read a registry (here one the test serves on loopback, with a bearer
 * challenge), with credentials from the local docker config ($DOCKER_CONFIG/config.json).
 * Without the flag, such an entry stays an error naming the flag.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../main.js";
import { recordingIo } from "../../../test/support/fake-io.js";
import { tempTree } from "../../../test/support/temp-dir.js";
import { TestRegistry } from "../../../test/support/test-registry.js";
import { CEL_NO_ROOT_POLICY } from "../../../test/support/image-policies.js";

const registry = new TestRegistry({ users: { ci: "pull-pass" } });
let dockerConfig = "";
const savedDockerConfig = process.env["DOCKER_CONFIG"];

const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: no-root-images}
spec:
  validationFailureAction: Enforce
  rules:
    - name: image-user
      match: {any: [{resources: {kinds: [Pod]}}]}
      context:
        - name: imageData
          imageRegistry:
            reference: "{{ request.object.spec.containers[0].image }}"
      validate:
        message: "image {{ imageData.resolvedImage }} runs as root"
        deny: {conditions: {any: [{key: "{{ imageData.configData.config.User || '' }}", operator: AnyIn, value: ["", root, "0"]}]}}
`;
const pods = (): string =>
  ["root", "safe"]
    .map(
      (name) =>
        `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, namespace: default}\nspec: {containers: [{name: c, image: ${registry.host}/team/${name}:1}]}\n`,
    )
    .join("---\n");

interface ApplyJson {
  results: { policy: string; resource: string; result: string; message: string }[];
}

async function apply(
  files: Record<string, string>,
  args: string[],
): Promise<{ code: number; out: ApplyJson; stderr: string }> {
  const dir = tempTree(files);
  const io = recordingIo();
  const code = await main(
    ["apply", join(dir, "p.yaml"), "-r", join(dir, "pods.yaml"), "--output-format", "json", ...args],
    io,
  );
  return { code, out: JSON.parse(io.stdout.join("\n")) as ApplyJson, stderr: io.stderr.join("\n") };
}

describe("--registry against a registry the test serves", () => {
  let rootDigest = "";
  before(async () => {
    await registry.start();
    rootDigest = registry.add("team/root", "1", { config: { config: { User: "root" } } });
    registry.add("team/safe", "1", { config: { config: { User: "1000" } } });
    const auth = Buffer.from("ci:pull-pass").toString("base64");
    dockerConfig = tempTree({ "config.json": JSON.stringify({ auths: { [registry.host]: { auth } } }) });
    process.env["DOCKER_CONFIG"] = dockerConfig;
  });
  after(async () => {
    if (savedDockerConfig === undefined) delete process.env["DOCKER_CONFIG"];
    else process.env["DOCKER_CONFIG"] = savedDockerConfig;
    await registry.stop();
  });

  test("bylaw apply --registry: the entry reads each image's config; the root image fails with Kyverno's resolvedImage", async () => {
    const run = await apply({ "p.yaml": policy, "pods.yaml": pods() }, ["--registry"]);
    assert.equal(run.code, 1, run.stderr);
    const byResource = Object.fromEntries(run.out.results.map((r) => [r.resource.split("/").pop() ?? "", r]));
    assert.equal(byResource["root"]?.result, "fail");
    assert.match(
      byResource["root"]?.message ?? "",
      new RegExp(`image ${registry.host}/team/root@${rootDigest} runs as root`),
    );
    assert.equal(byResource["safe"]?.result, "pass");
  });

  test("bylaw apply without --registry: the entry is skipped as in Kyverno's CLI (the expression's fallback decides), a warning names the flag, and no request to the registry", async () => {
    const before = registry.seen.length;
    const run = await apply({ "p.yaml": policy, "pods.yaml": pods() }, []);
    assert.equal(run.code, 1);
    assert.deepEqual(
      run.out.results.map((r) => r.result),
      ["fail", "fail"],
    );
    // The warning (process stderr, once per run) is asserted in registry-default.test.ts.
    assert.equal(registry.seen.length, before);
  });

  test("CEL image.GetMetadata reads the registry with --registry too", async () => {
    const run = await apply({ "p.yaml": CEL_NO_ROOT_POLICY, "pods.yaml": pods() }, ["--registry"]);
    const results = Object.fromEntries(run.out.results.map((r) => [r.resource.split("/").pop() ?? "", r.result]));
    assert.deepEqual(results, { root: "fail", safe: "pass" }, run.stderr + JSON.stringify(run.out.results));
  });

  test("bylaw test --registry: the suite's expected results hold against the registry", async () => {
    const suite = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: images}
policies: [p.yaml]
resources: [pods.yaml]
results:
  - {policy: no-root-images, rule: image-user, resources: [root], kind: Pod, result: fail}
  - {policy: no-root-images, rule: image-user, resources: [safe], kind: Pod, result: pass}
`;
    const dir = tempTree({ "p.yaml": policy, "pods.yaml": pods(), "kyverno-test.yaml": suite });
    const io = recordingIo();
    const code = await main(["test", dir, "--registry", "-o", "bylaw-json"], io);
    assert.equal(code, 0, io.stdout.join("\n") + io.stderr.join("\n"));
    const without = recordingIo();
    assert.equal(
      await main(["test", dir, "-o", "bylaw-json"], without),
      1,
      "without --registry the rows are errors, so the suite fails",
    );
  });
});
