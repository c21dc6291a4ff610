import { describe } from "node:test";
import {
  deployment,
  nginx,
  frozenPod,
  runMergeCases,
  sidecar,
  type MergeCase,
} from "../../../../test/support/strategic-merge-cases.js";

const run = (cases: readonly MergeCase[]): void => runMergeCases(cases, { noDirectivesLeft: true });

const secured = frozenPod({
  containers: [nginx, sidecar],
  securityContext: { runAsUser: 1000, fsGroup: 2000 },
  volumes: [
    { name: "cache", emptyDir: {} },
    { name: "certs", secret: { secretName: "tls" } },
  ],
});

describe("$patch on maps", () => {
  run([
    {
      name: "replace: the map becomes the patch map",
      resource: secured,
      patch: { spec: { securityContext: { $patch: "replace", runAsNonRoot: true } } },
      path: ["spec", "securityContext"],
      want: { runAsNonRoot: true },
    },
    {
      name: "delete: the key is removed",
      resource: secured,
      patch: { spec: { securityContext: { $patch: "delete" } } },
      path: ["spec", "securityContext"],
      want: undefined,
    },
    {
      name: "delete of an absent map adds nothing",
      resource: frozenPod({ containers: [nginx] }),
      patch: { spec: { affinity: { $patch: "delete", podAffinity: {} } } },
      path: ["spec", "affinity"],
      want: undefined,
    },
    {
      name: "merge: the default",
      resource: secured,
      patch: { spec: { securityContext: { $patch: "merge", runAsNonRoot: true } } },
      path: ["spec", "securityContext"],
      want: { runAsUser: 1000, fsGroup: 2000, runAsNonRoot: true },
    },
    {
      name: "replace drops nulls and applies nested directives",
      resource: secured,
      patch: {
        spec: {
          securityContext: {
            $patch: "replace",
            runAsUser: null,
            seccompProfile: { $patch: "merge", type: "RuntimeDefault" },
          },
        },
      },
      path: ["spec", "securityContext"],
      want: { seccompProfile: { type: "RuntimeDefault" } },
    },
  ]);
});

describe("$patch in keyed lists", () => {
  run([
    {
      name: "{$patch: replace} makes the list the other patch elements",
      resource: secured,
      patch: { spec: { containers: [{ $patch: "replace" }, { name: "only", image: "only:1" }] } },
      path: ["spec", "containers"],
      want: [{ name: "only", image: "only:1" }],
    },
    {
      name: "{$patch: delete} removes the list",
      resource: secured,
      patch: { spec: { volumes: [{ $patch: "delete" }] } },
      path: ["spec", "volumes"],
      want: undefined,
    },
    {
      name: "{$patch: merge} is ignored",
      resource: secured,
      patch: { spec: { containers: [{ $patch: "merge" }, { name: "nginx", image: "nginx:1.28" }] } },
      path: ["spec", "containers"],
      want: [{ ...nginx, image: "nginx:1.28" }, sidecar],
    },
    {
      name: "an element's $patch: delete removes the matching element",
      resource: secured,
      patch: { spec: { containers: [{ name: "log-shipper", $patch: "delete" }] } },
      path: ["spec", "containers"],
      want: [nginx],
    },
    {
      name: "deleting an element that is not there changes nothing",
      resource: secured,
      patch: { spec: { containers: [{ name: "ghost", $patch: "delete" }] } },
      path: ["spec", "containers"],
      want: [nginx, sidecar],
    },
    {
      name: "an env var is deleted inside a matched container",
      resource: secured,
      patch: { spec: { containers: [{ name: "nginx", env: [{ name: "MODE", $patch: "delete" }] }] } },
      path: ["spec", "containers", 0, "env"],
      want: [{ name: "LOG_LEVEL", value: "info" }],
    },
    {
      name: "an element's $patch: replace on an existing element keeps it as it was, moved first (kyaml Prepend, kustomize #6146)",
      resource: secured,
      patch: { spec: { containers: [{ name: "log-shipper", $patch: "replace", image: "vector:0.40" }] } },
      path: ["spec", "containers"],
      want: [sidecar, nginx],
    },
    {
      name: "an element's $patch: replace on a new element adds it",
      resource: secured,
      patch: { spec: { containers: [{ name: "new", $patch: "replace", image: "new:1" }] } },
      path: ["spec", "containers", 0],
      want: { name: "new", image: "new:1" },
    },
  ]);
});

describe("$retainKeys", () => {
  run([
    {
      name: "switching a volume from emptyDir to configMap",
      resource: secured,
      patch: {
        spec: { volumes: [{ name: "cache", $retainKeys: ["name", "configMap"], configMap: { name: "nginx-conf" } }] },
      },
      path: ["spec", "volumes"],
      want: [
        { name: "cache", configMap: { name: "nginx-conf" } },
        { name: "certs", secret: { secretName: "tls" } },
      ],
    },
    {
      name: "without $retainKeys both volume sources stay",
      resource: secured,
      patch: { spec: { volumes: [{ name: "cache", configMap: { name: "nginx-conf" } }] } },
      path: ["spec", "volumes", 0],
      want: { name: "cache", emptyDir: {}, configMap: { name: "nginx-conf" } },
    },
    {
      name: "Deployment strategy switched to Recreate drops rollingUpdate",
      resource: deployment({ containers: [nginx] }),
      patch: { spec: { strategy: { $retainKeys: ["type"], type: "Recreate" } } },
      path: ["spec", "strategy"],
      want: { type: "Recreate" },
    },
    {
      name: "ignored (but removed) where the schema has no retainKeys strategy",
      resource: secured,
      patch: { spec: { securityContext: { $retainKeys: ["runAsUser"], runAsGroup: 3000 } } },
      path: ["spec", "securityContext"],
      want: { runAsUser: 1000, fsGroup: 2000, runAsGroup: 3000 },
    },
  ]);
});

describe("$deleteFromPrimitiveList and $setElementOrder", () => {
  const finalized = frozenPod(
    { containers: [nginx, sidecar] },
    { finalizers: ["a.example.com/x", "b.example.com/y", "c.example.com/z"] },
  );
  run([
    {
      name: "$deleteFromPrimitiveList removes values from a scalar list",
      resource: finalized,
      patch: { metadata: { "$deleteFromPrimitiveList/finalizers": ["b.example.com/y", "absent"] } },
      path: ["metadata", "finalizers"],
      want: ["a.example.com/x", "c.example.com/z"],
    },
    {
      name: "$deleteFromPrimitiveList on an absent list adds nothing",
      resource: secured,
      patch: { metadata: { "$deleteFromPrimitiveList/finalizers": ["x"] } },
      path: ["metadata", "finalizers"],
      want: undefined,
    },
    {
      name: "$deleteFromPrimitiveList applies after the merge of the same list",
      resource: finalized,
      patch: {
        metadata: { finalizers: ["d.example.com/w"], "$deleteFromPrimitiveList/finalizers": ["a.example.com/x"] },
      },
      path: ["metadata", "finalizers"],
      want: ["d.example.com/w", "b.example.com/y", "c.example.com/z"],
    },
    {
      name: "$setElementOrder reorders a keyed list by merge key",
      resource: finalized,
      patch: { spec: { "$setElementOrder/containers": [{ name: "log-shipper" }, { name: "nginx" }] } },
      path: ["spec", "containers"],
      want: [sidecar, nginx],
    },
    {
      name: "$setElementOrder orders the merged list; unlisted elements follow",
      resource: finalized,
      patch: {
        spec: {
          containers: [{ name: "istio-proxy" }],
          "$setElementOrder/containers": [{ name: "nginx" }, { name: "istio-proxy" }],
        },
      },
      path: ["spec", "containers"],
      want: [nginx, { name: "istio-proxy" }, sidecar],
    },
    {
      name: "$setElementOrder reorders scalars by value",
      resource: finalized,
      patch: { metadata: { "$setElementOrder/finalizers": ["c.example.com/z", "a.example.com/x"] } },
      path: ["metadata", "finalizers"],
      want: ["c.example.com/z", "a.example.com/x", "b.example.com/y"],
    },
  ]);
});
