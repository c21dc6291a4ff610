/** `kyverno_policy_rule_info_total{status_ready}`: a rule Bylaw cannot run is never reported ready. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Registry } from "prom-client";
import { createMetrics } from "./create-metrics.js";
import type { JsonObject } from "../../engine/index.js";
import { compiled, snapshot, validatePolicy } from "../../../test/support/metrics-policies.js";

test("a verifyImages rule Bylaw cannot check (a key whose Rekor log is not ignored), and its autogen copies, is status_ready=false; a rule Bylaw runs is true", async () => {
  const registry = new Registry();
  const metrics = createMetrics({ registry, version: "v" });
  const verify = compiled({
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "verify" },
    spec: {
      validationFailureAction: "Enforce",
      rules: [
        {
          name: "sig",
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          verifyImages: [{ imageReferences: ["*"], attestors: [{ entries: [{ keys: { publicKeys: "k" } }] }] }],
        },
      ],
    },
  });
  metrics.policiesLoaded(snapshot([verify, compiled(validatePolicy("labels", {}, ["ConfigMap"]))]));
  const info = (await registry.metrics()).split("\n").filter((l) => l.startsWith("kyverno_policy_rule_info_total{"));
  const ready = info.map((l) => [
    /rule_name="([^"]*)"/.exec(l)?.[1],
    /rule_type="([^"]*)"/.exec(l)?.[1],
    /status_ready="([^"]*)"/.exec(l)?.[1],
  ]);
  assert.deepEqual(ready, [
    ["sig", "imageVerify", "false"],
    ["autogen-sig", "imageVerify", "false"],
    ["autogen-cronjob-sig", "imageVerify", "false"],
    ["check", "validate", "true"],
  ]);
});

test("a verifyImages rule with a key and the Rekor log ignored is ready where image registries are read, not elsewhere", async () => {
  const verify = compiled({
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "verify" },
    spec: {
      validationFailureAction: "Enforce",
      rules: [
        {
          name: "sig",
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          verifyImages: [
            {
              imageReferences: ["*"],
              attestors: [{ entries: [{ keys: { publicKeys: "k", rekor: { ignoreTlog: true } } }] }],
            },
          ],
        },
      ],
    },
  });
  for (const [canRead, want] of [
    [true, "true"],
    [false, "false"],
  ] as const) {
    const registry = new Registry();
    const metrics = createMetrics({
      registry,
      version: "v",
      canLoadContext: (kind) => kind !== "imageRegistry" || canRead,
    });
    metrics.policiesLoaded(snapshot([verify]));
    const info = (await registry.metrics()).split("\n").filter((l) => l.startsWith("kyverno_policy_rule_info_total{"));
    assert.deepEqual(
      info.map((l) => /status_ready="([^"]*)"/.exec(l)?.[1]),
      [want, want, want],
    );
  }
});

test("with canLoadContext, a rule whose context (or foreach context) the server cannot load is status_ready=false", async () => {
  const registry = new Registry();
  const metrics = createMetrics({ registry, version: "v", canLoadContext: (kind) => kind !== "configMap" });
  const rule = (name: string, extra: JsonObject): JsonObject => ({
    name,
    match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
    ...extra,
  });
  const policy = compiled({
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "ctx" },
    spec: {
      rules: [
        rule("cm", {
          context: [{ name: "cfg", configMap: { name: "c", namespace: "n" } }],
          validate: {
            message: "m",
            deny: { conditions: { any: [{ key: "{{ cfg.data.x }}", operator: "Equals", value: "1" }] } },
          },
        }),
        rule("each", {
          validate: {
            foreach: [
              {
                list: "request.object.data",
                context: [{ name: "cfg", configMap: { name: "c", namespace: "n" } }],
                deny: { conditions: { any: [{ key: "{{ cfg.data.x }}", operator: "Equals", value: "1" }] } },
              },
            ],
          },
        }),
        rule("var", {
          context: [{ name: "v", variable: { value: "x" } }],
          validate: { message: "m", pattern: { metadata: { name: "?*" } } },
        }),
      ],
    },
  });
  metrics.policiesLoaded(snapshot([policy]));
  const info = (await registry.metrics()).split("\n").filter((l) => l.startsWith("kyverno_policy_rule_info_total{"));
  const ready = info.map((l) => [/rule_name="([^"]*)"/.exec(l)?.[1], /status_ready="([^"]*)"/.exec(l)?.[1]]);
  assert.deepEqual(ready, [
    ["cm", "false"],
    ["each", "false"],
    ["var", "true"],
  ]);
});

test("a generate rule and a mutate-existing rule (no controller runs them) are status_ready=false; a standard mutate rule is true", async () => {
  const registry = new Registry();
  const metrics = createMetrics({ registry, version: "v" });
  const background = compiled({
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "background" },
    spec: {
      rules: [
        {
          name: "gen",
          match: { any: [{ resources: { kinds: ["Namespace"] } }] },
          generate: { apiVersion: "v1", kind: "ConfigMap", name: "c", namespace: "default", data: { data: {} } },
        },
        {
          name: "existing",
          match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
          mutate: {
            targets: [{ apiVersion: "v1", kind: "Secret", namespace: "default" }],
            patchStrategicMerge: { metadata: { labels: { a: "b" } } },
          },
        },
        {
          name: "standard",
          match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
          mutate: { patchStrategicMerge: { metadata: { labels: { a: "b" } } } },
        },
      ],
    },
  });
  metrics.policiesLoaded(snapshot([background]));
  const info = (await registry.metrics()).split("\n").filter((l) => l.startsWith("kyverno_policy_rule_info_total{"));
  assert.deepEqual(
    info.map((l) => [/rule_name="([^"]*)"/.exec(l)?.[1], /status_ready="([^"]*)"/.exec(l)?.[1]]),
    [
      ["gen", "false"],
      ["existing", "false"],
      ["standard", "true"],
    ],
  );
});
