#!/usr/bin/env node
/**
 * Prints the arguments of the `bylaw` Deployment's container, one per line, from a rendered
 * manifest on stdin (`kubectl kustomize deploy/base`), so that scripts/cluster/bylaw.sh runs
 * `bylaw serve` with exactly the arguments deploy/ ships. Exits 1, naming the problem, when the
 * render has no such Deployment or an argument holds a newline.
 */
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";

const docs = parseAllDocuments(readFileSync(0, "utf8")).map((d) => d.toJS());
const deployment = docs.find((d) => d?.kind === "Deployment" && d?.metadata?.name === "bylaw");
const args = deployment?.spec?.template?.spec?.containers?.[0]?.args;
if (!Array.isArray(args) || args.some((a) => typeof a !== "string" || a.includes("\n"))) {
  console.error("deploy-args: the render has no Deployment bylaw whose first container has string arguments");
  process.exit(1);
}
process.stdout.write(`${args.join("\n")}\n`);
