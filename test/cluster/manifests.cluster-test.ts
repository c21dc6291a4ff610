/**
 * validate.manifests in cluster mode, end to end with kubectl against one
 * `scripts/cluster.sh up DIR --with-bylaw` (the policy a ClusterPolicy object, the key inline): a
 * ConfigMap signed by the policy's key is created; the same ConfigMap with a changed data entry is
 * denied with Kyverno's message naming the field; an unsigned one is denied as "message not found".
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import type { JsonObject } from "../../src/engine/index.js";
import { signed, testKey } from "../support/signed-manifests.js";
import { eventually, kubectlOk, startCluster, stopCluster, started, type Cluster } from "./cluster-harness.js";
import { textOf } from "../../src/engine/index.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;
const current = (): Cluster => started(cluster);
const team = testKey();

const configMap = (name: string, value: string): JsonObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "signed" },
  data: { mode: value },
});

const policy = {
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name: "signed-configmaps" },
  spec: {
    validationFailureAction: "Enforce",
    background: false,
    rules: [
      {
        name: "signed-by-team",
        match: { any: [{ resources: { kinds: ["ConfigMap"], namespaces: ["signed"] } }] },
        validate: { manifests: { attestors: [{ entries: [{ keys: { publicKeys: team.publicKey } }] }] } },
      },
    ],
  },
};

/** Retries until Bylaw denies the create with a message matching `re`; what was admitted meanwhile is deleted. */
const deniedWith = (what: string, re: RegExp, object: JsonObject): Promise<string> =>
  eventually(what, 60_000, async () => {
    const r = await current().kubectl(["create", "-f", "-"], JSON.stringify(object));
    if (r.code === 0) {
      await current().kubectl([
        "delete",
        "configmap",
        textOf((object["metadata"] as JsonObject)["name"]),
        "-n",
        "signed",
        "--ignore-not-found",
      ]);
      throw new Error("admitted");
    }
    if (!re.test(r.stderr)) throw new Error(r.stderr);
    return r.stderr;
  });

describe(
  "validate.manifests in cluster mode (kubectl against a real cluster)",
  { timeout: buildTimeoutMs + 10 * 60_000 },
  () => {
    before(async () => {
      cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
      console.log(`# scripts/cluster.sh up --with-bylaw took ${cluster.upSeconds.toFixed(1)} s`);
      await kubectlOk(current(), ["create", "namespace", "signed"]);
      await kubectlOk(current(), ["apply", "-f", "-"], JSON.stringify(policy));
    });

    after(async () => {
      if (cluster === undefined) return;
      const down = await stopCluster(cluster.dir);
      assert.equal(down.code, 0, `scripts/cluster.sh down failed: ${down.stderr}`);
      rmSync(cluster.dir, { recursive: true, force: true });
    });

    test("an unsigned ConfigMap is denied: the manifest is not found", async () => {
      const denied = await deniedWith("an unsigned ConfigMap denied", /signed-configmaps/, configMap("plain", "a"));
      assert.match(denied, /YAML manifest not found for this resource: message not found/);
    });

    test("a tampered ConfigMap is denied naming the changed field; the signed one is created", async () => {
      const good = signed(configMap("settings", "safe"), [team]);
      const denied = await deniedWith("a tampered ConfigMap denied", /diff found/, {
        ...good,
        data: { mode: "unsafe" },
      });
      assert.match(denied, /\{"items":\[\{"key":"data\.mode","values":\{"after":"unsafe","before":"safe"\}\}\]\}/);
      await kubectlOk(current(), ["create", "-f", "-"], JSON.stringify(good));
      assert.match(
        await kubectlOk(current(), ["get", "configmap", "settings", "-n", "signed", "-o", "jsonpath={.data.mode}"]),
        /^safe$/,
      );
    });
  },
);
