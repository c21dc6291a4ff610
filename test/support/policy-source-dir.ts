/** Helpers for the policy source tests: policy YAML text, waiting for events, leak checks. */
import { createEngine } from "../../src/engine/index.js";
import { fakePorts } from "./fake-ports.js";
import type { PolicySourceEvent } from "../../src/server/types.js";
import { directoryPolicySource } from "../../src/server/policy-source/directory-policy-source.js";
import type {
  DirectoryPolicySource,
  DirectoryPolicySourceOptions,
  LogLevel,
} from "../../src/server/policy-source/types.js";

/** A ClusterPolicy requiring a label, as a user would write it. */
export function policyYaml(name: string, label = "app", extraSpec = ""): string {
  return `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: ${name}
spec:
${extraSpec}  rules:
    - name: require-${label}
      match:
        any:
          - resources:
              kinds: [Pod]
      validate:
        message: "label ${label} is required"
        pattern:
          metadata:
            labels:
              ${label}: "?*"
`;
}

export interface Opened {
  readonly source: DirectoryPolicySource;
  readonly logs: { level: LogLevel; msg: string }[];
  readonly events: PolicySourceEvent[];
  /** The next event (after those already seen) matching `kind`. */
  next: (kind?: PolicySourceEvent["kind"], timeoutMs?: number) => Promise<PolicySourceEvent>;
}

export async function open(options: Omit<DirectoryPolicySourceOptions, "engine">): Promise<Opened> {
  const logs: { level: LogLevel; msg: string }[] = [];
  const source = await directoryPolicySource({
    engine: createEngine(fakePorts()),
    debounceMs: 20,
    pollMs: 40,
    settleMs: 0,
    onLog: (level, msg) => logs.push({ level, msg }),
    ...options,
  });
  const events: PolicySourceEvent[] = [];
  let seen = 0;
  let waiter: (() => void) | undefined;
  source.onChange((e) => {
    events.push(e);
    waiter?.();
  });
  const next = (kind?: PolicySourceEvent["kind"], timeoutMs = 3000): Promise<PolicySourceEvent> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiter = undefined;
        reject(
          new Error(
            `no ${kind ?? "event"} within ${timeoutMs} ms; events so far: ${events.map((e) => e.kind).join(", ")}`,
          ),
        );
      }, timeoutMs);
      const check = (): void => {
        while (seen < events.length) {
          const e = events[seen++];
          if (e !== undefined && (kind === undefined || e.kind === kind)) {
            clearTimeout(timer);
            waiter = undefined;
            resolve(e);
            return;
          }
        }
      };
      waiter = check;
      check();
    });
  return { source, logs, events, next };
}

export function names(source: DirectoryPolicySource): string[] {
  return source.current().policies.map((p) => p.name);
}

/** File watches and timers alive in the process, by kind (after closed handles are released). */
export async function liveHandles(): Promise<{ watchers: number; timers: number }> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
  const info = process.getActiveResourcesInfo();
  return {
    watchers: info.filter((x) => x === "FSEventWrap").length,
    timers: info.filter((x) => x === "Timeout").length,
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
