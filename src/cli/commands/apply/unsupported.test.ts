/** `bylaw apply` never passes what it cannot run: each unsupported feature is an error result naming it, exit 1. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";

const pod = `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec: {containers: [{name: c, image: ghcr.io/acme/web:1.0}]}
`;
const clusterPolicy = (rule: string, spec = "") => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: p}
spec:
  validationFailureAction: Enforce
${spec}  rules:
    - name: r
${rule}`;
const podMatch = `      match: {any: [{resources: {kinds: [Pod]}}]}
`;
const verifyImages = (attestors: string, extra = ""): string => `      verifyImages:
        - imageReferences: ["ghcr.io/acme/*"]
          mutateDigest: false
          verifyDigest: false${extra}
          attestors: [{entries: [${attestors}]}]
`;
const key = `{keys: {publicKeys: "-----BEGIN PUBLIC KEY-----\\nabc\\n-----END PUBLIC KEY-----"}}`;

async function apply(
  policy: string,
  extra: Record<string, string> = {},
  args: string[] = [],
): Promise<{
  code: number;
  out: {
    summary: Record<string, number>;
    results: { policy: string; rule: string; result: string; message: string }[];
  };
  stderr: string;
}> {
  const dir = tempTree({ "p.yaml": policy, "r.yaml": pod, ...extra });
  const io = recordingIo();
  const code = await main(
    [
      "apply",
      join(dir, "p.yaml"),
      "-r",
      join(dir, "r.yaml"),
      "--output-format",
      "json",
      ...args.map((a) => a.replace("$DIR", dir)),
    ],
    io,
  );
  return { code, out: JSON.parse(io.stdout.join("\n")) as never, stderr: io.stderr.join("\n") };
}

describe("bylaw apply: features Bylaw does not run yet", () => {
  const cases: [string, string, RegExp][] = [
    [
      "verifyImages: a keyless attestor",
      podMatch + verifyImages(`{keyless: {subject: s, issuer: i}}`),
      /failed to verify image ghcr\.io\/acme\/web:1\.0: \.attestors\[0\]\.entries\[0\]\.keyless: keyless verification needs Fulcio certificates and the Rekor transparency log/,
    ],
    [
      "verifyImages: a key whose Rekor log is not ignored",
      podMatch + verifyImages(key),
      /\.attestors\[0\]\.entries\[0\]\.keys: Bylaw does not check the Rekor transparency log .*set keys\.rekor\.ignoreTlog: true/,
    ],
    [
      "verifyImages: attestations with a keyless attestor",
      podMatch +
        `      verifyImages:\n        - imageReferences: ["ghcr.io/acme/*"]\n          mutateDigest: false\n          verifyDigest: false\n          attestations: [{type: "https://slsa.dev/provenance/v0.2", attestors: [{entries: [{keyless: {subject: s, issuer: i}}]}]}]\n`,
      /image attestations verification failed, verifiedCount: 0, requiredCount: 1, error: \.attestations\[0\]\.attestors\[0\]\.entries\[0\]\.keyless: keyless verification needs Fulcio certificates/,
    ],
    [
      "verifyImages: attestations with no attestors",
      podMatch +
        verifyImages(
          `{keys: {publicKeys: k, rekor: {ignoreTlog: true}}}`,
          `\n          attestations: [{type: "https://slsa.dev/provenance/v0.2"}]`,
        ).replace(/attestors: .*\n/, ""),
      /\.attestations\[0\]\.attestors: attestations with no attestors are verified keylessly/,
    ],
    [
      "validate.manifests with dryRun (a server-side dry run)",
      `${podMatch}      validate: {manifests: {dryRun: {enable: true}, attestors: [{entries: [{keys: {publicKeys: k}}]}]}}\n`,
      /validate\.manifests\.dryRun\.enable: true needs a cluster/,
    ],
    [
      "validate.manifests with repository (manifests in an OCI registry)",
      `${podMatch}      validate: {manifests: {repository: ghcr.io/acme/manifests, attestors: [{entries: [{keys: {publicKeys: k}}]}]}}\n`,
      /validate\.manifests\.repository \(ghcr\.io\/acme\/manifests\): signed manifests stored in an OCI registry are not fetched/,
    ],
    [
      "celPreconditions on a pattern rule",
      `${podMatch}      celPreconditions: [{name: c, expression: "true"}]\n      validate: {pattern: {metadata: {name: "?*"}}}\n`,
      /celPreconditions outside validate\.cel \(Kyverno allows them only with validate\.cel\) is not supported/,
    ],
    [
      "celPreconditions on a mutate rule",
      `${podMatch}      celPreconditions: [{name: c, expression: "true"}]\n      mutate: {patchStrategicMerge: {metadata: {labels: {a: b}}}}\n`,
      /celPreconditions outside validate\.cel \(Kyverno allows them only with validate\.cel\) is not supported/,
    ],
  ];
  for (const [name, rule, want] of cases) {
    test(`${name}: an error naming the feature, exit 1`, async () => {
      const { code, out } = await apply(clusterPolicy(rule));
      assert.equal(code, 1);
      const errors = out.results.filter((r) => r.policy === "p" && r.rule === "r" && r.result === "error");
      // verifyImages answers on its mutate side (signatures) and its validate side (required): an error each.
      assert.ok(errors.length >= 1 && errors.length === out.results.length, JSON.stringify(out.results));
      for (const e of errors) assert.match(e.message, want);
      assert.equal(
        out.results.some((r) => r.result === "pass"),
        false,
      );
    });
  }

  test("webhookConfiguration.matchConditions are run, not reported: a Pod they exclude gets no result, one they include is checked", async () => {
    const rule = `${podMatch}      validate: {message: "a team label is required", pattern: {metadata: {labels: {team: "?*"}}}}\n`;
    const only = (ns: string) =>
      `  webhookConfiguration:\n    matchConditions: [{name: only-${ns}, expression: "object.metadata.namespace == '${ns}'"}]\n`;
    const excluded = await apply(clusterPolicy(rule, only("other")));
    assert.deepEqual([excluded.code, excluded.out.results], [0, []]);
    const included = await apply(clusterPolicy(rule, only("shop")));
    assert.equal(included.code, 1);
    assert.deepEqual(
      included.out.results.map((r) => [r.rule, r.result]),
      [["r", "fail"]],
    );
  });

  test("matching still applies first: a verifyImages rule for Deployments says nothing about a Pod", async () => {
    const { code, out } = await apply(
      clusterPolicy(`      match: {any: [{resources: {kinds: [Deployment]}}]}\n${verifyImages(key)}`),
    );
    assert.equal(code, 0);
    assert.deepEqual(out.results, []);
  });

  test("an imageRegistry context entry with no registry access is skipped as Kyverno's CLI skips it: the expression's fallback applies, a warning names --registry; a values file can stand in", async () => {
    const rule = `${podMatch}      context: [{name: imageData, imageRegistry: {reference: "{{ request.object.spec.containers[0].image }}"}}]
      validate:
        deny: {conditions: {any: [{key: "{{ imageData.configData.config.User || '' }}", operator: Equals, value: ""}]}}
`;
    const missing = await apply(clusterPolicy(rule));
    assert.equal(missing.code, 1);
    // imageData is unset, so `imageData.configData.config.User || ''` is "": the deny holds, as in Kyverno.
    assert.deepEqual(
      missing.out.results.map((r) => r.result),
      ["fail"],
    );
    // The warning (process stderr, once per run) is asserted in registry-default.test.ts.
    const values = `apiVersion: cli.kyverno.io/v1alpha1
kind: Values
policies:
  - name: p
    rules:
      - name: r
        values:
          imageData: {configData: {config: {User: "1000"}}}
`;
    const given = await apply(clusterPolicy(rule), { "v.yaml": values }, ["-f", "$DIR/v.yaml"]);
    assert.deepEqual(
      given.out.results.map((r) => r.result),
      ["pass"],
    );
    assert.equal(given.code, 0);
  });

  test("a ValidatingPolicy runs: a failing Deny validation is a fail with Kyverno's default message, exit 1, no warning", async () => {
    const vpol = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: vpol}
spec:
  validationActions: [Deny]
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]}
  validations: [{expression: "false"}]
`;
    const { code, out, stderr } = await apply(vpol);
    assert.equal(code, 1);
    assert.deepEqual(
      out.results.map((r) => [r.result, r.message]),
      [["fail", "CEL expression validation failed at index 0"]],
    );
    assert.doesNotMatch(stderr, /not supported/);
  });

  // v1alpha1, v1beta1 and v1, which Kyverno 1.19's CLI reads, run (mutating-admission-policy.test.ts); another version is not run.
  for (const [apiVersion, kind] of [
    ["admissionregistration.k8s.io/v2alpha1", "MutatingAdmissionPolicy"],
    ["admissionregistration.k8s.io/v2alpha1", "MutatingAdmissionPolicyBinding"],
  ] as const) {
    test(`${kind} does not vanish: an error for the resource`, async () => {
      const { code, out } = await apply(
        `apiVersion: ${apiVersion}\nkind: ${kind}\nmetadata: {name: x, namespace: shop}\nspec: {}\n`,
      );
      assert.equal(code, 1);
      assert.deepEqual(
        out.results.map((r) => r.result),
        ["error"],
      );
      assert.match(out.results[0]?.message ?? "", new RegExp(`${kind} policies are not supported by Bylaw yet`));
    });
  }
});
