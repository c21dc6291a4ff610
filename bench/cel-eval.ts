/**
 * µs per CEL expression in Kyverno's environment (src/engine/cel): compile (parse, type-check,
 * instrument) and hot evaluation of the compiled program, for validate.cel-style expressions from
 * the Pod Security policies; also the cost of turning the resource into CEL values once per
 * request, and what the cost metering adds (the same expression on bare cel-js).
 *
 *   npm run bench:cel
 */
import { pathToFileURL } from "node:url";
import { Environment } from "@marcbachmann/cel-js";
import type { JsonObject } from "../src/engine/api/json.js";
import { createCel, toCel } from "../src/engine/cel/index.js";

const EXPRESSIONS = [
  "object.spec.containers.all(c, !has(c.securityContext) || !has(c.securityContext.privileged) || c.securityContext.privileged == false)",
  "(object.spec.containers + object.spec.?initContainers.orValue([]) + object.spec.?ephemeralContainers.orValue([])).all(container, container.?securityContext.?allowPrivilegeEscalation.orValue(true) == false)",
  "object.spec.containers.all(c, c.?securityContext.?capabilities.?drop.orValue([]).exists(cap, cap.upperAscii() == 'ALL'))",
  "!has(object.spec.hostNetwork) || object.spec.hostNetwork == false",
  "object.metadata.?labels[?'app.kubernetes.io/name'].orValue('') != ''",
  "object.spec.containers.all(c, c.image.matches('^registry\\\\.example\\\\.com/.+:[0-9.]+$'))",
  "object.spec.containers.all(c, quantity(c.resources.requests.memory).isLessThan(quantity('1Gi')))",
  "object.spec.?volumes.orValue([]).all(v, !has(v.hostPath))",
];

function pod(): JsonObject {
  const containers = [1, 2, 3].map((i) => ({
    name: `c${i}`,
    image: `registry.example.com/team/app${i}:1.${i}.0`,
    securityContext: { privileged: false, allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
    resources: { requests: { memory: `${64 * i}Mi`, cpu: `${100 * i}m` }, limits: { cpu: `${200 * i}m` } },
  }));
  return { apiVersion: "v1", kind: "Pod", metadata: { name: "web-42", namespace: "shop", labels: { "app.kubernetes.io/name": "web" } }, spec: { containers, volumes: [{ name: "data", emptyDir: {} }] } };
}

/** Median µs per call over 5 batches (the machine is shared: the median resists others' load). */
function perCall(rounds: number, f: () => void): number {
  const batches: number[] = [];
  for (let b = 0; b < 5; b++) {
    const t = performance.now();
    for (let i = 0; i < rounds / 5; i++) f();
    batches.push(((performance.now() - t) * 1000) / (rounds / 5));
  }
  return batches.sort((a, b) => a - b)[2] ?? NaN;
}

export function benchCel(): void {
  const cel = createCel();
  const resource = pod();
  const object = toCel(resource);
  const activation = { object, oldObject: null, request: {}, params: null, namespaceObject: null, variables: {} };
  const bare = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false }).registerVariable("object", "dyn");
  const toCelUs = perCall(20_000, () => toCel(resource));
  console.log(`cel: resource to CEL values (once per request): ${toCelUs.toFixed(2)} µs`);
  let sumHot = 0;
  for (const [i, expr] of EXPRESSIONS.entries()) {
    const compileUs = perCall(500, () => cel.compile(expr));
    const program = cel.compile(expr);
    if (!program.ok) throw new Error(program.error.message);
    const first = program.value.evaluate(activation);
    if (!first.ok || first.value !== true) throw new Error(`expression ${i + 1} did not answer true: ${JSON.stringify(first)}`);
    for (let w = 0; w < 20_000; w++) program.value.evaluate(activation);
    const hotUs = perCall(200_000, () => program.value.evaluate(activation));
    sumHot += hotUs;
    let bareUs = NaN;
    if (!expr.includes("quantity(") && !expr.includes("matches(")) {
      const p = bare.parse(expr);
      p.check();
      for (let w = 0; w < 20_000; w++) p({ object });
      bareUs = perCall(200_000, () => p({ object }));
    }
    const bareText = Number.isNaN(bareUs) ? "" : `, bare cel-js ${bareUs.toFixed(2)} µs`;
    console.log(`cel: #${i + 1} compile ${compileUs.toFixed(1)} µs, hot ${hotUs.toFixed(2)} µs${bareText} — ${expr.slice(0, 70)}${expr.length > 70 ? "…" : ""}`);
  }
  console.log(`cel: ${EXPRESSIONS.length} expressions, mean hot evaluation ${(sumHot / EXPRESSIONS.length).toFixed(2)} µs`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  console.log(`bench cel: node ${process.version}, ${new Date().toISOString()}`);
  benchCel();
}
