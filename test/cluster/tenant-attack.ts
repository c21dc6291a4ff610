/**
 * What every hostile-tenant cluster suite shares (tenant-isolation.md): the cluster with the two
 * tenant namespaces, the tenant's RBAC and the admin's control policy in force; the tenant's kubectl
 * (`--as tenant-a-admin`); and the control review in tenant-b that must stay right and fast while
 * the tenant attacks, with Bylaw still the same process.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { request } from "node:https";
import { join } from "node:path";
import {
  bylawEnv,
  eventually,
  kubectlOk,
  processMemoryMiB,
  processRunning,
  readPids,
  startCluster,
  started,
  tearDown,
  type Cluster,
  type RunResult,
} from "./cluster-harness.js";
import { TENANT_RBAC } from "./tenant-read-policies.js";
import { CONTROL_POLICY, configMap } from "./hostile-cel-policies.js";

export const BUILD_TIMEOUT_MS = 90 * 60_000;
/** kubectl's arguments to act as the tenant. */
export const TENANT = ["--as", "tenant-a-admin"];
/** A control review's answer within this many milliseconds, while the tenant attacks. */
const CONTROL_MS = 2000;

export interface ControlAnswer {
  readonly ms: number;
  readonly right: boolean;
}

export interface TenantKit {
  /** The cluster, once `setUp` has started it. */
  readonly current: () => Cluster;
  /** Starts the cluster with Bylaw, the tenant namespaces, RBAC and the control policy (enforced when it returns). */
  readonly setUp: (options?: { readonly extra?: (kit: TenantKit) => Promise<void> }) => Promise<Cluster>;
  /** Stops the cluster, if it started. */
  readonly tearDown: () => Promise<void>;
  readonly ok: (args: readonly string[], input?: string) => Promise<string>;
  readonly asTenant: (args: readonly string[], input?: string) => Promise<RunResult>;
  /** `kubectl [args] create --dry-run=server -f -` of `object`. */
  readonly dryRun: (args: readonly string[], object: string) => Promise<RunResult>;
  /** A control review in tenant-b: the forbidden ConfigMap denied, the allowed one admitted; with its time. */
  readonly control: () => Promise<ControlAnswer>;
  /** Controls answered right within 2 s, `times` in a row, and Bylaw still the process `pid`. */
  readonly controlsHold: (pid: number, times?: number) => Promise<void>;
  /** Runs `attack` while control reviews go on one after another; every control must be right within 2 s. */
  readonly duringAttack: <T>(attack: () => Promise<T>) => Promise<T>;
  /** Bylaw's pid (it must be running). */
  readonly bylawPid: () => number;
  /** Asserts Bylaw is still the process `pid`. */
  readonly sameProcess: (pid: number) => void;
  /** The most resident memory the process `pid` has had, in MiB (VmHWM, Linux). */
  readonly peakMiB: (pid: number) => number;
  /** Bylaw's last warnings and errors from its log (to say why when a check times out). */
  readonly recentWarnings: () => string;
  /** One HTTPS call straight to Bylaw's webhook port (its certificate not checked): status and body. */
  readonly callWebhook: (method: string, path: string, body?: string) => Promise<{ status: number; text: string }>;
}

export function assertControls(controls: readonly ControlAnswer[]): void {
  for (const c of controls) {
    assert.ok(c.right, "the control review is answered correctly");
    assert.ok(c.ms < CONTROL_MS, `a control review took ${c.ms} ms`);
  }
}

export function tenantKit(): TenantKit {
  let cluster: Cluster | undefined;
  const current = (): Cluster => started(cluster);
  const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);
  const dryRun = (args: readonly string[], object: string): Promise<RunResult> =>
    current().kubectl([...args, "create", "--dry-run=server", "-f", "-"], object);
  const control = async (): Promise<ControlAnswer> => {
    const t0 = Date.now();
    const [denied, allowed] = await Promise.all([
      dryRun([], configMap("control-no", "tenant-b", { control: "forbidden" })),
      dryRun([], configMap("control-yes", "tenant-b", { control: "fine" })),
    ]);
    const right =
      denied.code !== 0 && /the control denies forbidden ConfigMaps/.test(denied.stderr) && allowed.code === 0;
    return { ms: Date.now() - t0, right };
  };
  const sameProcess = (pid: number): void => {
    assert.ok(processRunning(pid), "Bylaw is still running");
    assert.equal(readPids(current().dir).get("bylaw"), pid, "Bylaw was not restarted");
  };
  const kit: TenantKit = {
    current,
    tearDown: () => tearDown(cluster),
    ok,
    dryRun,
    control,
    sameProcess,
    asTenant: (args, input) => current().kubectl([...TENANT, ...args], input),
    setUp: async (options) => {
      cluster = await startCluster(BUILD_TIMEOUT_MS, undefined, { withBylaw: true });
      console.log(`# scripts/cluster.sh up --with-bylaw took ${cluster.upSeconds.toFixed(1)} s`);
      for (const ns of ["tenant-a", "tenant-b"]) await ok(["create", "namespace", ns]);
      await ok(["apply", "-f", "-"], TENANT_RBAC);
      await ok(["apply", "-f", "-"], CONTROL_POLICY);
      await options?.extra?.(kit);
      await eventually("control policy enforced", 60_000, async () => ((await control()).right ? true : undefined));
      return cluster;
    },
    controlsHold: async (pid, times = 3) => {
      const controls: ControlAnswer[] = [];
      for (let i = 0; i < times; i++) controls.push(await control());
      assertControls(controls);
      sameProcess(pid);
    },
    duringAttack: async <T>(attack: () => Promise<T>): Promise<T> => {
      let done = false;
      const controls: ControlAnswer[] = [];
      const loop = (async () => {
        while (!done) controls.push(await control());
      })();
      try {
        return await attack();
      } finally {
        done = true;
        await loop;
        controls.push(await control());
        const times = controls.map((c) => c.ms).sort((a, b) => a - b);
        console.log(
          `# ${controls.length} control reviews: median ${times[times.length >> 1]} ms, max ${times[times.length - 1]} ms`,
        );
        assertControls(controls);
      }
    },
    peakMiB: (pid) => processMemoryMiB(pid, "VmHWM"),
    recentWarnings: () =>
      readFileSync(join(current().dir, "logs", "bylaw.log"), "utf8")
        .split("\n")
        .filter((l) => /"level":"(warn|error|fatal)"/.test(l))
        .slice(-5)
        .map((l) => l.slice(0, 400))
        .join("\n"),
    bylawPid: () => {
      const pid = readPids(current().dir).get("bylaw");
      assert.ok(pid !== undefined && processRunning(pid), "Bylaw runs");
      return pid;
    },
    callWebhook: (method, path, body) =>
      callWebhook({ port: Number(bylawEnv(current().dir)["BYLAW_PORT"]), method, path, body }),
  };
  return kit;
}

function callWebhook(call: {
  readonly port: number;
  readonly method: string;
  readonly path: string;
  readonly body: string | undefined;
}): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const headers: Record<string, string> =
      call.body !== undefined
        ? { "content-type": "application/json", "content-length": String(Buffer.byteLength(call.body)) }
        : {};
    const req = request(
      {
        host: "127.0.0.1",
        port: call.port,
        method: call.method,
        path: call.path,
        rejectUnauthorized: false,
        timeout: 30_000,
        agent: false,
        headers,
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.on("error", (e) => resolve({ status: 0, text: e.message }));
    req.end(call.body);
  });
}
