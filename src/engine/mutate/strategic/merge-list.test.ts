import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject, JsonValue } from "../../api/json.js";
import { fieldSchema, schemaForKind, strategicMerge, strategicMergeResource } from "./index.js";
import {
  at,
  deepFreeze,
  deployment,
  nginx,
  frozenPod,
  runMergeCases,
  sidecar,
  type MergeCase,
} from "../../../../test/support/strategic-merge-cases.js";
import { textOf } from "../../api/json.js";

const run = (cases: readonly MergeCase[]): void => runMergeCases(cases);

const names = (list: JsonValue | undefined): string[] =>
  Array.isArray(list) ? list.map((c) => textOf(at(c, "name"))) : [];
const tpl = (spec: JsonObject): JsonObject => ({ spec: { template: { spec } } });
const podContainers = ["spec", "template", "spec", "containers"];

describe("lists merged by key: new elements are prepended", () => {
  test("adding vault-agent to a Deployment of [nginx] gives [vault-agent, nginx]", () => {
    const merged = strategicMergeResource(
      deployment({ containers: [nginx] }),
      tpl({ containers: [{ name: "vault-agent", image: "vault:1.17" }] }),
    );
    assert.ok(merged.ok);
    assert.deepEqual(names(at(merged.value, ...podContainers)), ["vault-agent", "nginx"]);
    assert.deepEqual(at(merged.value, ...podContainers, 1), nginx);
  });

  test("several new elements are prepended in patch order", () => {
    const patch = tpl({
      containers: [
        { name: "a", image: "a" },
        { name: "b", image: "b" },
      ],
    });
    const merged = strategicMergeResource(deployment({ containers: [nginx, sidecar] }), patch);
    assert.ok(merged.ok);
    assert.deepEqual(names(at(merged.value, ...podContainers)), ["a", "b", "nginx", "log-shipper"]);
  });

  test("an element the patch names moves to the front, merged (kyaml Prepend)", () => {
    const patch = tpl({ containers: [{ name: "log-shipper", image: "fluent-bit:3.1" }] });
    const merged = strategicMergeResource(deployment({ containers: [nginx, sidecar] }), patch);
    assert.ok(merged.ok);
    assert.deepEqual(at(merged.value, ...podContainers), [{ name: "log-shipper", image: "fluent-bit:3.1" }, nginx]);
  });

  test("patch order decides: named elements first, the others after in base order", () => {
    const patch = tpl({
      containers: [
        { name: "istio-proxy", image: "proxyv2" },
        { name: "nginx", imagePullPolicy: "Always" },
      ],
    });
    const merged = strategicMergeResource(deployment({ containers: [sidecar, nginx] }), patch);
    assert.ok(merged.ok);
    assert.deepEqual(names(at(merged.value, ...podContainers)), ["istio-proxy", "nginx", "log-shipper"]);
    assert.deepEqual(at(merged.value, ...podContainers, 1), { ...nginx, imagePullPolicy: "Always" });
  });

  test("per-element patches applied last-to-first keep the original order (why Kyverno's foreach runs in reverse)", () => {
    let resource: JsonObject = frozenPod({ containers: [{ name: "a" }, { name: "b" }, { name: "c" }] });
    for (const name of ["c", "b", "a"]) {
      const merged = strategicMergeResource(resource, { spec: { containers: [{ name, image: `${name}:2` }] } });
      assert.ok(merged.ok);
      resource = merged.value;
    }
    assert.deepEqual(at(resource, "spec", "containers"), [
      { name: "a", image: "a:2" },
      { name: "b", image: "b:2" },
      { name: "c", image: "c:2" },
    ]);
  });

  test("strategicMerge works from a nested schema node (PodSpec)", () => {
    const podSpec = fieldSchema(schemaForKind("v1", "Pod"), "spec")?.node;
    assert.ok(podSpec !== undefined);
    const merged = strategicMerge(
      deepFreeze({ containers: [nginx] }),
      deepFreeze({ containers: [{ name: "nginx", env: [{ name: "X", value: "1" }] }] }),
      podSpec,
    );
    assert.ok(merged.ok);
    assert.deepEqual(at(merged.value, "containers", 0, "env", 2), { name: "MODE", value: "prod" });
  });

  test("a patch element without the merge key is new", () => {
    const merged = strategicMergeResource(frozenPod({ containers: [nginx] }), {
      spec: { containers: [{ image: "busybox" }] },
    });
    assert.ok(merged.ok);
    assert.deepEqual(at(merged.value, "spec", "containers"), [{ image: "busybox" }, nginx]);
  });
});

describe("nested keyed lists", () => {
  run([
    {
      name: "env merges by name inside the matched container",
      resource: deployment({ containers: [nginx] }),
      patch: tpl({
        containers: [
          {
            name: "nginx",
            env: [
              { name: "MODE", value: "dev" },
              { name: "TRACE", value: "1" },
            ],
          },
        ],
      }),
      path: [...podContainers, 0, "env"],
      want: [
        { name: "MODE", value: "dev" },
        { name: "TRACE", value: "1" },
        { name: "LOG_LEVEL", value: "info" },
      ],
    },
    {
      name: "an env value may become a valueFrom (maps merge inside the element)",
      resource: frozenPod({ containers: [nginx] }),
      patch: {
        spec: {
          containers: [
            {
              name: "nginx",
              env: [{ name: "LOG_LEVEL", value: null, valueFrom: { configMapKeyRef: { name: "cfg", key: "level" } } }],
            },
          ],
        },
      },
      path: ["spec", "containers", 0, "env", 0],
      want: { name: "LOG_LEVEL", valueFrom: { configMapKeyRef: { name: "cfg", key: "level" } } },
    },
    {
      name: "volumeMounts merge by mountPath",
      resource: frozenPod({ containers: [nginx] }),
      patch: {
        spec: {
          containers: [
            {
              name: "nginx",
              volumeMounts: [
                { mountPath: "/cache", readOnly: true },
                { name: "tmp", mountPath: "/tmp" },
              ],
            },
          ],
        },
      },
      path: ["spec", "containers", 0, "volumeMounts"],
      want: [
        { name: "cache", mountPath: "/cache", readOnly: true },
        { name: "tmp", mountPath: "/tmp" },
      ],
    },
    {
      name: "ports without protocol merge into the port with the same containerPort",
      resource: frozenPod({ containers: [nginx] }),
      patch: { spec: { containers: [{ name: "nginx", ports: [{ containerPort: 8080, hostPort: 80 }] }] } },
      path: ["spec", "containers", 0, "ports"],
      want: [{ containerPort: 8080, protocol: "TCP", name: "http", hostPort: 80 }],
    },
    {
      name: "a port with another protocol is a new element (list-map keys containerPort + protocol)",
      resource: frozenPod({ containers: [nginx] }),
      patch: { spec: { containers: [{ name: "nginx", ports: [{ containerPort: 8080, protocol: "UDP" }] }] } },
      path: ["spec", "containers", 0, "ports"],
      want: [
        { containerPort: 8080, protocol: "UDP" },
        { containerPort: 8080, protocol: "TCP", name: "http" },
      ],
    },
    {
      name: "initContainers and imagePullSecrets merge by name too",
      resource: frozenPod({
        containers: [nginx],
        initContainers: [{ name: "init", image: "busybox" }],
        imagePullSecrets: [{ name: "regcred" }],
      }),
      patch: {
        spec: { initContainers: [{ name: "init", image: "busybox:1.36" }], imagePullSecrets: [{ name: "mirror" }] },
      },
      path: ["spec"],
      want: {
        containers: [nginx],
        initContainers: [{ name: "init", image: "busybox:1.36" }],
        imagePullSecrets: [{ name: "mirror" }, { name: "regcred" }],
      },
    },
    {
      name: "a keyed list absent from the resource is the patch list",
      resource: frozenPod({ containers: [sidecar] }),
      patch: { spec: { containers: [{ name: "log-shipper", env: [{ name: "A", value: "1", valueFrom: null }] }] } },
      path: ["spec", "containers", 0, "env"],
      want: [{ name: "A", value: "1" }],
    },
    {
      name: "an empty patch list leaves a keyed list alone",
      resource: frozenPod({ containers: [nginx, sidecar] }),
      patch: { spec: { containers: [] } },
      path: ["spec", "containers"],
      want: [nginx, sidecar],
    },
  ]);
});

describe("sets of scalars (metadata.finalizers)", () => {
  const withFinalizers = frozenPod(
    { containers: [nginx] },
    { finalizers: ["kubernetes.io/pvc-protection", "example.com/cleanup"] },
  );
  run([
    {
      name: "new values are prepended",
      resource: withFinalizers,
      patch: { metadata: { finalizers: ["example.com/audit"] } },
      path: ["metadata", "finalizers"],
      want: ["example.com/audit", "kubernetes.io/pvc-protection", "example.com/cleanup"],
    },
    {
      name: "values already there are not duplicated (patch values first, kyaml order)",
      resource: withFinalizers,
      patch: { metadata: { finalizers: ["example.com/cleanup", "example.com/audit", "example.com/audit"] } },
      path: ["metadata", "finalizers"],
      want: ["example.com/cleanup", "example.com/audit", "kubernetes.io/pvc-protection"],
    },
    {
      name: "on a resource without the list, the patch values (deduplicated)",
      resource: frozenPod({ containers: [nginx] }),
      patch: { metadata: { finalizers: ["a", "a", "b"] } },
      path: ["metadata", "finalizers"],
      want: ["a", "b"],
    },
  ]);
});

describe("lists without a merge strategy are replaced", () => {
  const base = frozenPod({
    containers: [{ ...nginx, command: ["nginx", "-g", "daemon off;"] }],
    tolerations: [{ key: "dedicated", operator: "Equal", value: "web", effect: "NoSchedule" }],
  });
  run([
    {
      name: "tolerations (atomic)",
      resource: base,
      patch: { spec: { tolerations: [{ key: "spot", operator: "Exists" }] } },
      path: ["spec", "tolerations"],
      want: [{ key: "spot", operator: "Exists" }],
    },
    {
      name: "args and command inside a matched container",
      resource: base,
      patch: { spec: { containers: [{ name: "nginx", args: ["--debug"], command: ["/entrypoint"] }] } },
      path: ["spec", "containers", 0],
      want: { ...nginx, args: ["--debug"], command: ["/entrypoint"] },
    },
    {
      name: "an empty list empties an atomic list",
      resource: base,
      patch: { spec: { tolerations: [] } },
      path: ["spec", "tolerations"],
      want: [],
    },
    {
      name: "lists under fields the schema does not know are replaced (labelSelector expressions)",
      resource: deployment({ containers: [nginx] }),
      patch: { spec: { selector: { matchExpressions: [{ key: "tier", operator: "In", values: ["web"] }] } } },
      path: ["spec", "selector"],
      want: { matchLabels: { app: "web" }, matchExpressions: [{ key: "tier", operator: "In", values: ["web"] }] },
    },
  ]);
});
