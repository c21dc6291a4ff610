/**
 * verifyImages end to end: `bylaw apply --registry` and `bylaw test --registry` against a registry
 * the test serves (bearer auth), holding images signed as `cosign sign --key` signs them (an ECDSA
 * P-256 key made here; the signature manifest tagged sha256-<hex>.sig). A good signature passes and
 * the tag is rewritten to the digest (the suite's patchedResource); the wrong key and an unsigned
 * image fail with cosign's messages; without --registry the rule is an error naming the flag.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../main.js";
import { recordingIo } from "../../../test/support/fake-io.js";
import { tempTree } from "../../../test/support/temp-dir.js";
import { TestRegistry } from "../../../test/support/test-registry.js";
import { ecdsaKey, signPayload, simpleSigning } from "../../../test/support/cosign-signing.js";

const registry = new TestRegistry({ users: { ci: "pull-pass" }, blobRedirect: true });
const key = ecdsaKey();
const otherKey = ecdsaKey();
const savedDockerConfig = process.env["DOCKER_CONFIG"];
const digests: Record<string, string> = {};

const policy = (): string => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: signed-images}
spec:
  validationFailureAction: Enforce
  background: false
  rules:
    - name: verify-signature
      match: {any: [{resources: {kinds: [Pod]}}]}
      verifyImages:
        - imageReferences: ["${registry.host}/team/*"]
          attestors:
            - entries:
                - keys:
                    publicKeys: ${JSON.stringify(key.publicPem)}
                    rekor: {ignoreTlog: true}
`;
const podYaml = (name: string, image: string): string =>
  `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, namespace: default}\nspec: {containers: [{name: c, image: ${image}}]}\n`;
const pods = (): string =>
  ["signed", "forged", "unsigned"].map((n) => podYaml(n, `${registry.host}/team/${n}:1`)).join("---\n");

interface ApplyJson {
  results: { policy: string; rule: string; resource: string; result: string; message: string }[];
}

async function apply(args: string[]): Promise<{ code: number; out: ApplyJson; stderr: string; dir: string }> {
  const dir = tempTree({ "p.yaml": policy(), "pods.yaml": pods() });
  const io = recordingIo();
  const code = await main(
    ["apply", join(dir, "p.yaml"), "-r", join(dir, "pods.yaml"), "--output-format", "json", ...args],
    io,
  );
  return { code, out: JSON.parse(io.stdout.join("\n")) as ApplyJson, stderr: io.stderr.join("\n"), dir };
}

const byPod = (out: ApplyJson): Record<string, [string, string][]> => {
  const m: Record<string, [string, string][]> = {};
  for (const r of out.results) (m[r.resource.split("/").pop() ?? ""] ??= []).push([r.result, r.message]);
  return m;
};

describe("verifyImages against a registry serving cosign-signed images", () => {
  before(async () => {
    await registry.start();
    for (const name of ["signed", "forged", "unsigned"])
      digests[name] = registry.add(`team/${name}`, "1", { config: { config: {} } });
    const sign = (name: string, k = key) =>
      registry.sign(`team/${name}`, digests[name] ?? "", [
        signPayload(k, simpleSigning(`${registry.host}/team/${name}`, digests[name] ?? "")),
      ]);
    sign("signed");
    sign("forged", otherKey);
    const auth = Buffer.from("ci:pull-pass").toString("base64");
    process.env["DOCKER_CONFIG"] = tempTree({
      "config.json": JSON.stringify({ auths: { [registry.host]: { auth } } }),
    });
  });
  after(async () => {
    if (savedDockerConfig === undefined) delete process.env["DOCKER_CONFIG"];
    else process.env["DOCKER_CONFIG"] = savedDockerConfig;
    await registry.stop();
  });

  test("bylaw apply --registry: the signed image passes, the wrong key and the unsigned image fail with cosign's messages", async () => {
    const run = await apply(["--registry"]);
    assert.equal(run.code, 1, run.stderr);
    const r = byPod(run.out);
    const image = (n: string): string => `${registry.host}/team/${n}:1`;
    assert.deepEqual(r["signed"], [
      ["pass", `verified image signatures for ${image("signed")}`],
      ["pass", "image verified"],
    ]);
    assert.deepEqual(r["forged"]?.[0], [
      "fail",
      `failed to verify image ${image("forged")}: .attestors[0].entries[0].keys: no matching signatures: invalid signature when validating ASN.1 encoded signature`,
    ]);
    assert.deepEqual(r["unsigned"]?.[0], [
      "fail",
      `failed to verify image ${image("unsigned")}: .attestors[0].entries[0].keys: no signatures found`,
    ]);
    assert.deepEqual(r["forged"]?.[1]?.[0], "fail");
  });

  test("bylaw apply without --registry: errors naming the flag, and no request to the registry", async () => {
    const seen = registry.seen.length;
    const written: string[] = [];
    const original = process.stderr.write.bind(process.stderr);
    process.stderr.write = (chunk: string | Uint8Array) => (written.push(String(chunk)), true);
    const run = await apply([]).finally(() => (process.stderr.write = original));
    const r = byPod(run.out);
    assert.equal(r["signed"]?.[0]?.[0], "error");
    // The row carries Kyverno's text; how to read the registry is said once, on stderr.
    assert.match(r["signed"]?.[0]?.[1] ?? "", /image data for \S+\/team\/signed:1 not found in the context$/);
    assert.equal(written.filter((w) => /no registry access: run with --registry/.test(w)).length, 1, written.join(""));
    assert.equal(registry.seen.length, seen);
  });

  test("bylaw apply --registry: every policy's mutate rules run before any verifyImages rule, as Kyverno's CLI runs them", async () => {
    // The verifyImages policy comes first; the mutate policy after it moves the Pod's image into the
    // verified repository. Kyverno mutates with every policy, then verifies images with every policy.
    const rewrite = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: rewrite-registry}
spec:
  background: false
  rules:
    - name: to-team
      match: {any: [{resources: {kinds: [Pod]}}]}
      mutate:
        foreach:
          - list: request.object.spec.containers
            patchStrategicMerge:
              spec: {containers: [{name: "{{ element.name }}", image: "${registry.host}/team/signed:1"}]}
`;
    const dir = tempTree({
      "p.yaml": `${policy()}---\n${rewrite}`,
      "pod.yaml": podYaml("elsewhere", "docker.io/library/nginx:1"),
    });
    const io = recordingIo();
    const code = await main(
      ["apply", join(dir, "p.yaml"), "-r", join(dir, "pod.yaml"), "--registry", "--output-format", "json"],
      io,
    );
    assert.equal(code, 0, io.stderr.join("\n"));
    const out = JSON.parse(io.stdout.join("\n")) as ApplyJson;
    assert.deepEqual(
      out.results.map((r) => [r.policy, r.rule, r.result, r.message]),
      [
        ["rewrite-registry", "to-team", "pass", "mutated Pod/elsewhere in namespace default"],
        ["signed-images", "verify-signature", "pass", `verified image signatures for ${registry.host}/team/signed:1`],
        ["signed-images", "verify-signature", "pass", "image verified"],
      ],
    );
    // The text output prints the mutate policy's resource only, as Kyverno's processor does.
    const text = recordingIo();
    await main(["apply", join(dir, "p.yaml"), "-r", join(dir, "pod.yaml"), "--registry"], text);
    assert.deepEqual(text.stdout.join("\n").match(/^policy \S+ applied to/gm), ["policy rewrite-registry applied to"]);
  });

  test("bylaw test --registry: the expected rows hold, and the patched resource names the digest", async () => {
    const patched = `apiVersion: v1
kind: Pod
metadata:
  name: signed
  namespace: default
  annotations:
    kyverno.io/verify-images: '${JSON.stringify({ [`${registry.host}/team/signed@${digests["signed"]}`]: "pass" })}'
spec: {containers: [{name: c, image: "${registry.host}/team/signed:1@${digests["signed"]}"}]}
`;
    const suite = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: signed}
policies: [p.yaml]
resources: [pods.yaml]
results:
  - {policy: signed-images, rule: verify-signature, resources: [signed], kind: Pod, result: pass, patchedResources: patched.yaml}
  - {policy: signed-images, rule: verify-signature, resources: [forged, unsigned], kind: Pod, result: fail}
`;
    const dir = tempTree({
      "p.yaml": policy(),
      "pods.yaml": pods(),
      "patched.yaml": patched,
      "kyverno-test.yaml": suite,
    });
    const io = recordingIo();
    const code = await main(["test", dir, "--registry", "-o", "bylaw-json"], io);
    assert.equal(code, 0, io.stdout.join("\n") + io.stderr.join("\n"));
    const without = recordingIo();
    assert.equal(
      await main(["test", dir, "-o", "bylaw-json"], without),
      1,
      "without --registry the rows are errors, so the suite fails",
    );
    const stale = tempTree({
      "p.yaml": policy(),
      "pods.yaml": pods(),
      "patched.yaml": patched.replace(`@${digests["signed"]}"`, '"'),
      "kyverno-test.yaml": suite,
    });
    const staleIo = recordingIo();
    assert.equal(
      await main(["test", stale, "--registry", "-o", "bylaw-json"], staleIo),
      1,
      "a patched resource without the digest is a mismatch",
    );
    assert.match(staleIo.stdout.join("\n"), /Resource diff|patched\.yaml/);
  });
});
