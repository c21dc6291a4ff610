/**
 * Starts and stops the local control plane of `scripts/cluster.sh` (docs/adr/0007) for the
 * cluster end-to-end tests, and runs kubectl against it.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const clusterScript = join(repoRoot, "scripts", "cluster.sh");

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to completion; a non-zero exit is a result, not a throw. */
export function run(
  file: string,
  args: readonly string[],
  timeoutMs: number,
  input?: string,
  env?: NodeJS.ProcessEnv,
): Promise<RunResult> {
  return new Promise((done) => {
    const child = execFile(
      file,
      [...args],
      {
        timeout: timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
        ...(env !== undefined ? { env: { ...process.env, ...env } } : {}),
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        done({ code, stdout, stderr: error !== null && code === 1 && stderr === "" ? error.message : stderr });
      },
    );
    // A child that exits before reading all its input (killed at the timeout, or failing early) is
    // answered by its exit code and stderr above, not by an EPIPE thrown from the write.
    child.stdin?.on("error", () => undefined);
    if (input !== undefined) child.stdin?.end(input);
  });
}

export interface Cluster {
  readonly dir: string;
  readonly kubeconfig: string;
  /** Seconds `scripts/cluster.sh up` took, build included. */
  readonly upSeconds: number;
  /** The pids `up` recorded, one per component. */
  readonly pids: ReadonlyMap<string, number>;
  kubectl(args: readonly string[], input?: string): Promise<RunResult>;
}

/** The pids of a cluster folder's components (DIR/pids/<component>.pid: pid, then binary path). */
export function readPids(dir: string): Map<string, number> {
  const pids = new Map<string, number>();
  for (const file of readdirSync(join(dir, "pids"))) {
    const pid = Number(readFileSync(join(dir, "pids", file), "utf8").split("\n")[0]);
    if (Number.isInteger(pid) && pid > 0) pids.set(file.replace(/\.pid$/, ""), pid);
  }
  return pids;
}

/** A process's memory in MiB from /proc/PID/status: VmRSS now, or VmHWM, the most it has had (Linux). */
export function processMemoryMiB(pid: number, field: "VmRSS" | "VmHWM"): number {
  const kb = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  assert.ok(kb !== undefined, `no ${field} for process ${pid}`);
  return Number(kb) / 1024;
}

/** Whether a process with this pid is running: present in /proc and not a zombie (exited, unreaped). */
export function processRunning(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return false;
  }
  return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
}

/**
 * `scripts/cluster.sh up` in a new temporary folder; the first run builds, which takes long.
 * `apiserverArgs` become BYLAW_CLUSTER_APISERVER_ARGS (extra kube-apiserver flags); `withBylaw`
 * also starts Bylaw, registered and Ready (`up DIR --with-bylaw`: DIR/bylaw.env, DIR/policies).
 */
export async function startCluster(
  buildTimeoutMs: number,
  apiserverArgs?: readonly string[],
  options: {
    readonly withBylaw?: boolean;
    /** More `bylaw serve` flags after deploy/'s, for a flag deploy/ does not set (BYLAW_CLUSTER_BYLAW_ARGS). */
    readonly bylawArgs?: string;
  } = {},
): Promise<Cluster> {
  const started = performance.now();
  const env = {
    ...(apiserverArgs !== undefined ? { BYLAW_CLUSTER_APISERVER_ARGS: apiserverArgs.join(" ") } : {}),
    ...(options.bylawArgs !== undefined ? { BYLAW_CLUSTER_BYLAW_ARGS: options.bylawArgs } : {}),
  };
  // A component that exits at start (a loopback port taken between picking it and binding it, when
  // several clusters start on one machine) gets one more try in a fresh folder, on fresh ports.
  let dir = mkdtempSync(join(tmpdir(), "bylaw-cluster-"));
  let up = await run(
    clusterScript,
    ["up", dir, ...(options.withBylaw === true ? ["--with-bylaw"] : [])],
    buildTimeoutMs,
    undefined,
    env,
  );
  if (up.code !== 0 && /exited while waiting/.test(up.stderr)) {
    console.log(
      `# scripts/cluster.sh up ${dir} failed at start, trying once more:\n# ${up.stderr.trim().split("\n").join("\n# ")}`,
    );
    dir = mkdtempSync(join(tmpdir(), "bylaw-cluster-"));
    up = await run(
      clusterScript,
      ["up", dir, ...(options.withBylaw === true ? ["--with-bylaw"] : [])],
      buildTimeoutMs,
      undefined,
      env,
    );
  }
  const upSeconds = (performance.now() - started) / 1000;
  if (up.code !== 0) throw new Error(`scripts/cluster.sh up ${dir} failed (exit ${up.code}):\n${up.stderr}`);
  const kubeconfig = join(dir, "kubeconfig");
  return {
    dir,
    kubeconfig,
    upSeconds,
    pids: readPids(dir),
    // 3 minutes: the server-side apply of deploy/crds (7 MB) takes about 14 s on a quiet machine and
    // several times that with other clusters starting beside it (test:cluster runs files concurrently).
    kubectl: (args, input) => run("kubectl", ["--kubeconfig", kubeconfig, ...args], 180_000, input),
  };
}

export function stopCluster(dir: string): Promise<RunResult> {
  return run(clusterScript, ["down", dir], 60_000);
}

/**
 * For an after hook: `scripts/cluster.sh down`, then every process the folder recorded (Bylaw
 * included, after restarts) has exited, and the folder is removed.
 */
export async function tearDown(cluster: Cluster | undefined): Promise<void> {
  if (cluster === undefined) return;
  const pids = readPids(cluster.dir);
  const down = await stopCluster(cluster.dir);
  assert.equal(down.code, 0, `scripts/cluster.sh down failed: ${down.stderr}`);
  assert.deepEqual(
    [...pids].filter(([, pid]) => processRunning(pid)),
    [],
    "Bylaw and every component have exited after down",
  );
  rmSync(cluster.dir, { recursive: true, force: true });
}

/**
 * `scripts/cluster.sh restart-bylaw DIR` (waits until Ready and registered unless `wait: false`);
 * `extraArgs` are more `bylaw serve` flags after deploy/'s (BYLAW_CLUSTER_BYLAW_ARGS).
 */
export async function restartBylaw(
  cluster: Cluster,
  options: { readonly wait?: boolean; readonly extraArgs?: string } = {},
): Promise<void> {
  const env = options.extraArgs !== undefined ? { BYLAW_CLUSTER_BYLAW_ARGS: options.extraArgs } : undefined;
  const r = await run(
    clusterScript,
    ["restart-bylaw", cluster.dir, ...(options.wait === false ? ["--no-wait"] : [])],
    180_000,
    undefined,
    env,
  );
  assert.equal(r.code, 0, `scripts/cluster.sh restart-bylaw failed: ${r.stderr}`);
}

/** What `up DIR --with-bylaw` wrote to DIR/bylaw.env (BYLAW_PORT, BYLAW_METRICS_PORT, …). */
export function bylawEnv(dir: string): Record<string, string> {
  return Object.fromEntries(
    readFileSync(join(dir, "bylaw.env"), "utf8")
      .split("\n")
      .filter((l) => l.includes("="))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
}

/** Polls until `check` returns a value (not undefined, not false), or fails naming what it waited for and the last state. */
export async function eventually<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      // `false` is "not yet" too: a check written as a condition must not pass on its first try.
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (performance.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}: ${String(last)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Waits until the API server's authorizer lets Bylaw's ServiceAccount `verb` `resource` in every namespace (an aggregated grant has reached it). */
export async function bylawGranted(cluster: Cluster, grant: { verb: string; resource: string }): Promise<void> {
  await eventually(`Bylaw's ServiceAccount to ${grant.verb} ${grant.resource}`, 60_000, async () => {
    const r = await cluster.kubectl([
      "auth",
      "can-i",
      grant.verb,
      grant.resource,
      "--as",
      "system:serviceaccount:bylaw:bylaw",
      "-A",
    ]);
    return r.stdout.trim() === "yes";
  });
}

/** The cluster a test file's before hook started; an error naming the hook when it did not. */
export function started(cluster: Cluster | undefined): Cluster {
  if (cluster === undefined) throw new Error("the cluster did not start (see the before hook)");
  return cluster;
}

/** Runs kubectl against `cluster` and returns its stdout; a non-zero exit fails the test with kubectl's stderr. */
export async function kubectlOk(cluster: Cluster, args: readonly string[], input?: string): Promise<string> {
  const r = await cluster.kubectl(args, input);
  assert.equal(r.code, 0, `kubectl ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout;
}

/**
 * Waits until CRDs are Established. `kubectl wait --for=condition=Established` errors out at once
 * ("status.conditions accessor error") when asked before the API server has written any condition
 * on a CRD just created, so it is asked again until it succeeds.
 */
export async function crdsEstablished(cluster: Cluster, target: readonly string[], timeoutMs = 60_000): Promise<void> {
  await eventually(`${target.join(" ")} Established`, timeoutMs, async () => {
    const r = await cluster.kubectl(["wait", "--for=condition=Established", "--timeout=10s", ...target]);
    if (r.code !== 0) throw new Error(r.stderr);
    return true;
  });
}
