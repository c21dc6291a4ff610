/**
 * An evaluation worker (worker_threads): compiles each policy snapshot it is sent, once, with the
 * same engine ports as `bylaw serve`, and runs review jobs under their deadline (admission/review-runner.ts
 * `runPolicies`), reporting each finished policy as it goes. The main thread terminates a worker
 * that runs past a job's deadline, so a stuck evaluation never holds the server.
 */
import { parentPort } from "node:worker_threads";
import { performance } from "node:perf_hooks";
import { type CompiledException, type CompiledPolicy, compileException, createEngine } from "../../engine/index.js";
import { servePorts } from "../serve-ports.js";
import { runPolicies } from "../admission/review-runner.js";
import { KEEP_SNAPSHOTS, type FromWorker, type RunMessage, type SnapshotMessage, type ToWorker } from "./wire.js";

type Compiled = { readonly policies: readonly CompiledPolicy[]; readonly exceptions: readonly CompiledException[] } | { readonly error: string };

// The same ports as the server's own engine, so a review gives the same results on either.
const engine = createEngine(servePorts());
const snapshots = new Map<number, Compiled>();
const now = (): number => performance.now() / 1000;
const port = parentPort;

function post(message: FromWorker): void {
  port?.postMessage(message);
}

function compileSnapshot(m: SnapshotMessage): Compiled {
  const policies: CompiledPolicy[] = [];
  for (const [i, doc] of m.policies.entries()) {
    const r = engine.compile(doc);
    if (!r.ok) return { error: `policy ${i} did not compile in the evaluation worker: ${r.problems.map((p) => p.message).join("; ")}` };
    const names = r.policy.rules.map((rule) => rule.name);
    if (names.join("\n") !== (m.ruleNames[i] ?? []).join("\n")) return { error: `policy ${r.policy.name} compiled to other rules in the evaluation worker` };
    policies.push(r.policy);
  }
  const exceptions: CompiledException[] = [];
  for (const doc of m.exceptions) {
    const r = compileException(doc);
    if (!r.ok) return { error: `a PolicyException did not compile in the evaluation worker: ${r.problems.map((p) => p.message).join("; ")}` };
    exceptions.push(r.exception);
  }
  return { policies, exceptions };
}

function run(m: RunMessage): void {
  const compiled = snapshots.get(m.snapshot);
  if (compiled === undefined || "error" in compiled) {
    post({ type: "end", job: m.job, error: compiled?.error ?? `policy snapshot ${m.snapshot} is not loaded in the evaluation worker` });
    return;
  }
  const policies = m.policies.map((i, k) => {
    const policy = compiled.policies[i];
    const names = m.rules[k];
    if (policy === undefined || names === null || names === undefined) return policy;
    const keep = new Set(names);
    return { ...policy, rules: policy.rules.filter((r) => keep.has(r.name)) };
  });
  if (policies.some((p) => p === undefined)) {
    post({ type: "end", job: m.job, error: "a policy of the job is not in its snapshot" });
    return;
  }
  const request = m.exceptions ? { ...m.request, exceptions: compiled.exceptions } : m.request;
  const subject = { engineRequest: request, ...(m.unknownNamespace !== undefined ? { unknownNamespace: m.unknownNamespace } : {}) };
  const outcome = runPolicies(
    engine,
    now,
    policies as CompiledPolicy[],
    subject,
    m.request.resource,
    now() + m.remainingSeconds,
    (done, index) => post({ type: "done", job: m.job, index, rules: done.response.rules, seconds: done.seconds }),
    m.kind,
  );
  post(outcome.resource !== undefined ? { type: "end", job: m.job, resource: outcome.resource } : { type: "end", job: m.job });
}

port?.on("message", (m: ToWorker) => {
  try {
    if (m.type === "snapshot") {
      snapshots.set(m.id, compileSnapshot(m));
      for (const id of snapshots.keys()) if (snapshots.size > KEEP_SNAPSHOTS) snapshots.delete(id);
      return;
    }
    run(m);
  } catch (e) {
    if (m.type === "run") post({ type: "end", job: m.job, error: e instanceof Error ? e.message : String(e) });
  }
});
