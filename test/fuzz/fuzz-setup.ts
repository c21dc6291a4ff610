/** The routes the fuzz cases go through: `bylaw serve`'s, over the shipped pss-restricted set plus mutate and JMESPath-heavy policies. */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import type { JsonObject } from "../../src/engine/index.js";
import { admissionBatchRoutes, admissionRoutes } from "../../src/server/app/start-servers.js";
import { fakeDeps } from "../support/fake-admission-deps.js";
import type { Routes } from "./check-answer.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

const EXTRA: JsonObject[] = [
  {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "require-team" },
    spec: {
      validationFailureAction: "Enforce",
      background: false,
      rules: [
        {
          name: "check-team",
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          validate: {
            message: "team {{ request.object.metadata.labels.team || 'none' }} must be set",
            pattern: { metadata: { labels: { team: "?*" } } },
          },
        },
        {
          name: "no-latest",
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          validate: {
            foreach: [
              {
                list: "request.object.spec.containers",
                deny: {
                  conditions: {
                    any: [{ key: "{{ regex_match('^.*:latest$', element.image) }}", operator: "Equals", value: true }],
                  },
                },
              },
            ],
          },
        },
      ],
    },
  },
  {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "add-labels" },
    spec: {
      failurePolicy: "Ignore",
      background: false,
      rules: [
        {
          name: "label",
          match: { any: [{ resources: { kinds: ["Pod", "ConfigMap", "Deployment"] } }] },
          mutate: {
            patchStrategicMerge: {
              metadata: { labels: { "+(managed-by)": "bylaw", owner: "{{ request.userInfo.username }}" } },
            },
          },
        },
        {
          name: "each",
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          mutate: {
            foreach: [
              {
                list: "request.object.spec.containers",
                patchesJson6902: "- op: add\n  path: /spec/containers/{{elementIndex}}/env\n  value: []",
              },
            ],
          },
        },
      ],
    },
  },
];

export function fuzzRoutes(): Routes {
  const dir = join(repoRoot, "deploy", "components", "policy-set-pss-restricted", "policies");
  const shipped = readdirSync(dir)
    .filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml")
    .map((f) => parse(readFileSync(join(dir, f), "utf8")) as JsonObject);
  const { deps } = fakeDeps({
    policies: [...shipped, ...EXTRA],
    namespaces: { shop: { team: "a" }, default: {}, "team-a": { env: "prod" } },
  });
  return { routes: admissionRoutes(deps), batchRoutes: admissionBatchRoutes(deps) };
}
