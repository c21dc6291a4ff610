/**
 * An apiCall whose call fails takes its `default`, as Kyverno's does (issue 33 §2), end to end
 * against `scripts/cluster.sh up DIR --with-bylaw`: Bylaw reads GETs from watches it starts, and a
 * list the API server refuses (Bylaw's ServiceAccount may not list Secrets cluster-wide; a group
 * that does not exist) is a failed call. Each policy is an Enforce rule that denies unless the
 * context value is the default (-1), so an admitted ConfigMap shows the default was taken; without a
 * default the same call is a rule error and the request is denied.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { eventually, kubectlOk, startCluster, started, tearDown, type Cluster } from "./cluster-harness.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);

const policy = (name: string, path: string, withDefault: boolean): string => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: ${name}
spec:
  background: false
  validationFailureAction: Enforce
  rules:
    - name: call
      match:
        any:
          - resources:
              kinds: [ConfigMap]
              namespaces: [calls]
              selector:
                matchLabels:
                  probe: ${name}
      context:
        - name: found
          apiCall:
            urlPath: "${path}"
            jmesPath: "items | length(@)"
${withDefault ? "            default: -1\n" : ""}      validate:
        message: "the call answered {{ found }}"
        deny:
          conditions:
            any:
              - key: "{{ found }}"
                operator: NotEquals
                value: -1
`;

const configMap = (name: string, probe: string): string =>
  JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "calls", labels: { probe } } });

const POLICIES = [
  policy("forbidden-default", "/api/v1/secrets", true),
  policy("missing-default", "/apis/nothing.example.com/v1/widgets", true),
  policy("forbidden-no-default", "/api/v1/secrets", false),
].join("---\n");

describe("an apiCall whose call fails takes its default", { timeout: buildTimeoutMs + 10 * 60_000 }, () => {
  before(async () => {
    cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
    await ok(["create", "namespace", "calls"]);
    await ok(["apply", "-f", "-"], POLICIES);
    await eventually("the policies in force", 90_000, async () => {
      const r = await current().kubectl(
        ["create", "--dry-run=server", "-f", "-"],
        configMap("probe", "forbidden-no-default"),
      );
      return r.code !== 0 ? true : undefined;
    });
  });

  after(async () => {
    await tearDown(cluster);
  });

  test("a list Bylaw may not make (Secrets, cluster-wide) and a group that does not exist: the default is taken", async () => {
    for (const probe of ["forbidden-default", "missing-default"]) {
      const r = await eventually(`${probe} admitted`, 60_000, async () => {
        const created = await current().kubectl(["create", "--dry-run=server", "-f", "-"], configMap("c", probe));
        return created.code === 0 ? created : undefined;
      });
      assert.equal(r.code, 0, r.stderr);
    }
  });

  test("the same call without a default is a rule error: the request is denied, naming the refused list", async () => {
    const r = await current().kubectl(
      ["create", "--dry-run=server", "-f", "-"],
      configMap("c", "forbidden-no-default"),
    );
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /forbidden/i);
  });
});
