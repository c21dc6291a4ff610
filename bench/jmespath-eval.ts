/**
 * µs per JMESPath evaluation over a representative set of Kyverno expressions: cold (parse every
 * time, as an engine without compile-once would) and from compiled, cached ASTs.
 */
import type { JsonObject } from "../src/engine/index.js";
import { createOfflineEngine } from "../src/platform/offline-engine.js";

const EXPRESSIONS = [
  "request.object.metadata.name",
  "request.object.spec.containers[].image",
  "request.object.spec.containers[?securityContext.privileged == `true`].name",
  "length(request.object.spec.containers)",
  "request.object.metadata.labels.\"app.kubernetes.io/name\" || ''",
  "images.containers.*.tag",
  "to_upper(request.object.metadata.namespace)",
  "regex_match('^[a-z]+-[0-9]+$', request.object.metadata.name)",
  "split(request.object.spec.containers[0].image, ':')[1]",
  "sum(request.object.spec.containers[].resources.requests.memory)",
  "request.object.spec.containers[].resources.limits.cpu | [?@ != null] | length(@)",
  "keys(request.object.metadata.labels)",
];

function context(): JsonObject {
  const containers = [1, 2, 3].map((i) => ({
    name: `c${i}`,
    image: `registry.example.com/team/app${i}:1.${i}.0`,
    securityContext: { privileged: i === 2 },
    resources: { requests: { memory: `${64 * i}Mi`, cpu: `${100 * i}m` }, limits: { cpu: `${200 * i}m` } },
  }));
  return {
    request: {
      operation: "CREATE",
      object: {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "web-42", namespace: "shop", labels: { "app.kubernetes.io/name": "web", team: "a" } },
        spec: { containers },
      },
    },
    images: {
      containers: Object.fromEntries(
        containers.map((c, i) => [c.name, { registry: "registry.example.com", tag: `1.${i + 1}.0` }]),
      ),
    },
  };
}

export function benchJmesPath(): void {
  const engine = createOfflineEngine();
  const jp = engine.env.jmespath;
  const fnctx = { ports: engine.env.ports };
  const data = context();
  const rounds = 2000;
  const compiled = EXPRESSIONS.map((e) => jp.compile(e));
  for (const c of compiled) c.search(data, fnctx); // warm up the JIT
  let t = performance.now();
  for (let r = 0; r < rounds; r++) for (const e of EXPRESSIONS) jp.compile(e).search(data, fnctx);
  const cold = ((performance.now() - t) * 1000) / (rounds * EXPRESSIONS.length);
  t = performance.now();
  for (let r = 0; r < rounds * 5; r++) for (const c of compiled) c.search(data, fnctx);
  const warm = ((performance.now() - t) * 1000) / (rounds * 5 * EXPRESSIONS.length);
  console.log(
    `jmespath: ${EXPRESSIONS.length} representative expressions: ${cold.toFixed(2)} µs per evaluation parsing each time (cold), ${warm.toFixed(2)} µs from compiled, cached ASTs`,
  );
}
