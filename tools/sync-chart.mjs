#!/usr/bin/env node
/**
 * Copy into the Helm chart (charts/bylaw) the files it ships that live elsewhere in the repository,
 * because Helm reads only files inside the chart's folder:
 *
 *   charts/bylaw/crds/<file>                              deploy/crds/*.yaml and its LICENSE, verbatim
 *   charts/bylaw/files/rbac/<file>                        deploy/base/rbac/*.yaml, verbatim (templates/rbac.yaml)
 *   charts/bylaw/files/policy-sets/<set>/audit/<p>.yaml    each policy of policies/<set>/set.yaml, verbatim
 *   charts/bylaw/files/policy-sets/<set>/enforce/<p>.yaml  the same in Enforce mode (tools/sync-policy-sets.mjs)
 *   charts/bylaw/files/monitoring/prometheusrule.yaml      deploy/components/prometheusrule's, verbatim
 *   charts/bylaw/files/dashboards/<file>.json              deploy/monitoring/dashboards/*.json, verbatim
 *
 * Usage: node tools/sync-chart.mjs           write the copies (and remove stale ones)
 *        node tools/sync-chart.mjs --check   write nothing; exit 1 and list the files that differ
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { readSets, toEnforce } from "./sync-policy-sets.mjs";

/** Every file the chart should hold a copy of: Map of absolute path -> content. */
export function desiredFiles(root) {
  const files = new Map();
  const crds = join(root, "deploy", "crds");
  for (const entry of readdirSync(crds).sort()) {
    if (entry === "kustomization.yaml") continue;
    files.set(join(root, "charts", "bylaw", "crds", entry), readFileSync(join(crds, entry), "utf8"));
  }
  const rbac = join(root, "deploy", "base", "rbac");
  for (const entry of readdirSync(rbac).sort())
    files.set(join(root, "charts", "bylaw", "files", "rbac", entry), readFileSync(join(rbac, entry), "utf8"));
  files.set(
    join(root, "charts", "bylaw", "files", "monitoring", "prometheusrule.yaml"),
    readFileSync(join(root, "deploy", "components", "prometheusrule", "prometheusrule.yaml"), "utf8"),
  );
  const dashboards = join(root, "deploy", "monitoring", "dashboards");
  for (const entry of readdirSync(dashboards).sort())
    files.set(
      join(root, "charts", "bylaw", "files", "dashboards", entry),
      readFileSync(join(dashboards, entry), "utf8"),
    );
  for (const set of readSets(root)) {
    const dir = join(root, "charts", "bylaw", "files", "policy-sets", set.name);
    for (const p of set.policies) {
      const text = readFileSync(p.source, "utf8");
      files.set(join(dir, "audit", `${p.name}.yaml`), text);
      files.set(join(dir, "enforce", `${p.name}.yaml`), toEnforce(text, relative(root, p.source)));
    }
  }
  return files;
}

function listFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}

/** The differences between the chart's copies and their sources. */
export function drift(root) {
  const wanted = desiredFiles(root);
  const problems = [];
  for (const [path, content] of wanted) {
    if (!existsSync(path)) problems.push({ path, problem: "missing" });
    else if (readFileSync(path, "utf8") !== content) problems.push({ path, problem: "differs from its source" });
  }
  for (const dir of [
    join(root, "charts", "bylaw", "crds"),
    join(root, "charts", "bylaw", "files", "rbac"),
    join(root, "charts", "bylaw", "files", "policy-sets"),
    join(root, "charts", "bylaw", "files", "monitoring"),
    join(root, "charts", "bylaw", "files", "dashboards"),
  ]) {
    for (const path of listFiles(dir)) if (!wanted.has(path)) problems.push({ path, problem: "has no source" });
  }
  return { wanted, problems };
}

function main(argv) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const { wanted, problems } = drift(root);
  if (argv.includes("--check")) {
    for (const p of problems) console.error(`${relative(root, p.path)}: ${p.problem}`);
    if (problems.length > 0) console.error(`${problems.length} file(s) out of date: run node tools/sync-chart.mjs`);
    return problems.length === 0 ? 0 : 1;
  }
  for (const { path, problem } of problems) {
    if (problem === "has no source") rmSync(path);
    else {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, wanted.get(path));
    }
    console.log(`${problem === "has no source" ? "removed" : "wrote"} ${relative(root, path)}`);
  }
  console.log(problems.length === 0 ? "the chart's copies are up to date" : `${problems.length} file(s) updated`);
  return 0;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (e) {
    console.error(`sync-chart: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 2;
  }
}
