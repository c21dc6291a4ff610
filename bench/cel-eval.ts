/**
 * µs per CEL expression in Kyverno's environment (src/engine/cel): compile (parse, type-check,
 * instrument) and hot evaluation of the compiled program, for validate.cel-style expressions from
 * the Pod Security policies; also the cost of turning the resource into CEL values once per
 * request, and what the cost metering adds (the same expression on bare cel-js).
 *
 * Then, per request, the corpus's Pod Security baseline policies in their validate.cel form
 * against their classic (pattern) form, through the engine as `bylaw apply` and the webhook run them.
 *
 *   npm run bench:cel
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Environment } from "@marcbachmann/cel-js";
import { createCel, toCel, type CompiledPolicy, type JsonObject } from "../src/engine/index.js";
import { offlineEngine } from "../src/cli/offline/offline-engine.js";
import { parseDocuments } from "../src/platform/yaml/index.js";
import { benchSizeBound } from "./twins-size-bound.js";

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
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web-42", namespace: "shop", labels: { "app.kubernetes.io/name": "web" } },
    spec: { containers, volumes: [{ name: "data", emptyDir: {} }] },
  };
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
  const bare = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false }).registerVariable(
    "object",
    "dyn",
  );
  const toCelUs = perCall(20_000, () => toCel(resource));
  console.log(`cel: resource to CEL values (once per request): ${toCelUs.toFixed(2)} µs`);
  let sumHot = 0;
  for (const [i, expr] of EXPRESSIONS.entries()) {
    const compileUs = perCall(500, () => cel.compile(expr));
    const program = cel.compile(expr);
    if (!program.ok) throw new Error(program.error.message);
    const first = program.value.evaluate(activation);
    if (!first.ok || first.value !== true)
      throw new Error(`expression ${i + 1} did not answer true: ${JSON.stringify(first)}`);
    for (let w = 0; w < 20_000; w++) program.value.evaluate(activation);
    const hotUs = perCall(200_000, () => program.value.evaluate(activation));
    sumHot += hotUs;
    let bareUs = NaN;
    if (!expr.includes("quantity(") && !expr.includes("matches(")) {
      const p = bare.parse(expr);
      p.check();
      for (let w = 0; w < 20_000; w++) p({ object });
      bareUs = perCall(200_000, () => {
        p({ object });
      });
    }
    const bareText = Number.isNaN(bareUs) ? "" : `, bare cel-js ${bareUs.toFixed(2)} µs`;
    console.log(
      `cel: #${i + 1} compile ${compileUs.toFixed(1)} µs, hot ${hotUs.toFixed(2)} µs${bareText} — ${expr.slice(0, 70)}${expr.length > 70 ? "…" : ""}`,
    );
  }
  console.log(
    `cel: ${EXPRESSIONS.length} expressions, mean hot evaluation ${(sumHot / EXPRESSIONS.length).toFixed(2)} µs`,
  );
}

const PSS_BASELINE = [
  "disallow-capabilities",
  "disallow-host-namespaces",
  "disallow-host-path",
  "disallow-host-ports",
  "disallow-host-process",
  "disallow-privileged-containers",
  "disallow-proc-mount",
  "disallow-selinux",
  "restrict-seccomp",
  "restrict-sysctls",
];

/** µs per request for the 10 Pod Security baseline policies, classic and validate.cel forms. */
export function benchCelPolicies(repoRoot: string): void {
  const corpus = resolve(repoRoot, "..", "shared", "conformance", "kyverno-policies");
  if (!existsSync(corpus)) {
    console.log(`cel: corpus not found at ${corpus}; policy comparison skipped`);
    return;
  }
  const engine = offlineEngine();
  const load = (dir: string): CompiledPolicy[] =>
    PSS_BASELINE.map((name) => {
      const doc = parseDocuments(readFileSync(join(corpus, dir, name, `${name}.yaml`), "utf8"), name)[0]?.value ?? null;
      const r = engine.compile(doc);
      if (!r.ok) throw new Error(`${dir}/${name}: ${JSON.stringify(r.problems)}`);
      return r.policy;
    });
  const resource = pod();
  for (const dir of ["pod-security/baseline", "pod-security-cel/baseline"]) {
    const policies = load(dir);
    const review = (): number => {
      const request = { resource, operation: "CREATE" as const, namespaceLabels: {} };
      let passed = 0;
      for (const p of policies) for (const r of engine.validate(p, request).rules) if (r.status === "pass") passed++;
      return passed;
    };
    const passed = review();
    for (let w = 0; w < 3000; w++) review();
    const us = perCall(10_000, review);
    console.log(`cel: ${dir}: ${policies.length} policies, ${passed} passing rules, ${us.toFixed(1)} µs per request`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  console.log(`bench cel: node ${process.version}, ${new Date().toISOString()}`);
  benchCel();
  benchSizeBound({ expressions: EXPRESSIONS, object: toCel(pod()), perCall });
  benchCelPolicies(resolve(dirname(fileURLToPath(import.meta.url)), "..", ".."));
}
