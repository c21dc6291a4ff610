/** Render the kustomize trees in deploy/ with `kubectl kustomize` and look into the output. */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";

export type Manifest = Record<string, unknown>;

/** The repository root: the nearest folder above this file holding deploy/base. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "deploy", "base", "kustomization.yaml"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error("cannot find deploy/base/kustomization.yaml above the test");
    dir = up;
  }
  return dir;
}

/** Why the kustomize tests cannot run here, or undefined when kubectl is available. */
export function kubectlMissing(): string | undefined {
  try {
    execFileSync("kubectl", ["version", "--client"], { stdio: "ignore", timeout: 30_000 });
    return undefined;
  } catch {
    return "kubectl is not installed (needed for `kubectl kustomize`); the deploy/ manifests were not checked";
  }
}

export function render(dir: string): Manifest[] {
  const text = execFileSync("kubectl", ["kustomize", dir], {
    encoding: "utf8",
    timeout: 60_000,
    stdio: ["ignore", "pipe", "pipe"],
  });
  return parseAllDocuments(text).map((d) => {
    if (!("toJS" in d) || d.errors.length > 0) throw new Error(`kubectl kustomize ${dir} printed invalid YAML`);
    return d.toJS() as Manifest;
  });
}

/** The value at a path of keys and indexes, or undefined. */
export function at(value: unknown, ...path: (string | number)[]): unknown {
  let cur = value;
  for (const key of path) {
    if (typeof key === "number") cur = Array.isArray(cur) ? cur[key] : undefined;
    else
      cur =
        cur !== null && typeof cur === "object" && !Array.isArray(cur)
          ? (cur as Record<string, unknown>)[key]
          : undefined;
  }
  return cur;
}

export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function byKind(manifests: readonly Manifest[], kind: string, name?: string): Manifest[] {
  return manifests.filter((m) => m["kind"] === kind && (name === undefined || at(m, "metadata", "name") === name));
}

/** The one manifest of a kind (and name); fails the test when there is not exactly one. */
export function one(manifests: readonly Manifest[], kind: string, name?: string): Manifest {
  const found = byKind(manifests, kind, name);
  const [first] = found;
  if (found.length !== 1 || first === undefined)
    throw new Error(`expected one ${kind}${name ? ` ${name}` : ""}, found ${found.length}`);
  return first;
}

/** Whether every key/value of a selector's matchLabels is among the labels. */
export function selects(matchLabels: unknown, labels: unknown): boolean {
  const want = Object.entries((matchLabels ?? {}) as Record<string, unknown>);
  return want.length > 0 && want.every(([k, v]) => at(labels, k) === v);
}

/** The value following a flag in an argument list. */
export function flag(args: readonly unknown[], name: string): unknown {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args[i + 1];
}
