/**
 * The engine's ExistingResources port for the generate controller: clone sources and cloneList
 * objects read from the API server. The engine is synchronous, reads are not: a read not made yet
 * answers a `pending` error and is recorded; the controller makes the recorded reads (`settle`)
 * and evaluates again (as src/kube/cluster-reads.ts does for context entries).
 *
 * A namespaced policy's port is confined to its namespace (tenant-isolation.md rule 1, after
 * substitution): a read in another namespace, or of a cluster-scoped kind, is refused before any
 * call is made, so a clone source or a mutate target that a variable points elsewhere is a rule
 * error, never a copy of another tenant's object.
 */
import {
  err,
  type ExistingResources,
  type LabelSelector,
  ok,
  parseApiVersion,
  type Resource,
  type Result,
} from "../../engine/index.js";
import { describeKubeError } from "../../kube/cluster-reads.js";
import { KubeError } from "../../kube/kube-client.js";
import type { KindPaths } from "./kind-paths.js";

type Answer = Result<Resource | undefined | readonly Resource[] | string>;
type Read = () => Promise<Answer>;

export class RecordedExisting {
  private readonly answers = new Map<string, Answer>();
  private readonly waiting = new Map<string, Read>();

  /** `confine`: the namespaced policy's namespace; "" or not given for a cluster-wide policy. */
  constructor(
    private readonly client: { getJson(path: string): Promise<unknown> },
    private readonly paths: KindPaths,
    private readonly confine = "",
  ) {}

  get pending(): number {
    return this.waiting.size;
  }

  async settle(): Promise<void> {
    const todo = [...this.waiting];
    this.waiting.clear();
    for (const [key, read] of todo) this.answers.set(key, await read());
  }

  port(): ExistingResources {
    return {
      // Discovery, read as the other answers are: a custom resource's kind, and a kind's resource.
      kindOf: (apiVersion, resource) =>
        this.answer(`kind ${apiVersion} ${resource}`, async () => {
          const { group, version } = parseApiVersion(apiVersion);
          const found = (await this.paths.listable(group, version, resource))[0];
          return ok(found?.resource.kind);
        }) as Result<string | undefined>,
      resourceOf: (apiVersion, kind) =>
        this.answer(`resource ${apiVersion} ${kind}`, async () =>
          ok((await this.paths.resolve(apiVersion, kind))?.resource.resource),
        ) as Result<string | undefined>,
      get: (apiVersion, kind, namespace, name) =>
        this.answer(`get ${apiVersion} ${kind} ${namespace} ${name}`, async () => {
          const where = await this.paths.resolve(apiVersion, kind);
          if (where === undefined) return err("unavailable", `the cluster serves no ${apiVersion} ${kind}`);
          const refused = this.outside(where.resource.namespaced, kind, namespace);
          if (refused !== undefined) return refused;
          try {
            return ok((await this.client.getJson(where.object(namespace, name))) as Resource);
          } catch (e) {
            if (e instanceof KubeError && e.status === 404) return ok(undefined);
            return err("unavailable", `failed to get ${kind} ${namespace}/${name}: ${describeKubeError(e)}`);
          }
        }) as Result<Resource | undefined>,
      list: (apiVersion, kind, namespace, _selector?: LabelSelector) =>
        this.answer(`list ${apiVersion} ${kind} ${namespace}`, async () => {
          const where = await this.paths.resolve(apiVersion, kind);
          if (where === undefined) return err("unavailable", `the cluster serves no ${apiVersion} ${kind}`);
          const refused = this.outside(where.resource.namespaced, kind, namespace);
          if (refused !== undefined) return refused;
          try {
            const list = (await this.client.getJson(where.collection(namespace))) as { items?: Resource[] };
            const version =
              where.resource.group === ""
                ? where.resource.version
                : `${where.resource.group}/${where.resource.version}`;
            return ok((list.items ?? []).map((i) => ({ apiVersion: version, kind, ...i })));
          } catch (e) {
            return err(
              "unavailable",
              `failed to list ${kind} in ${namespace || "all namespaces"}: ${describeKubeError(e)}`,
            );
          }
        }) as Result<readonly Resource[]>,
    };
  }

  /** The refusal of a read outside the confining namespace, or undefined when it is inside (or nothing confines). */
  private outside(namespaced: boolean, kind: string, namespace: string): Result<never> | undefined {
    if (this.confine === "") return undefined;
    const who = `a namespaced policy (namespace ${this.confine}) reaches only its own namespace`;
    if (!namespaced) return err("refused", `${who}: may not read the cluster-scoped kind ${kind}`);
    if (namespace !== this.confine)
      return err(
        "refused",
        `${who}: may not read ${kind} in ${namespace === "" ? "all namespaces" : `namespace "${namespace}"`}`,
      );
    return undefined;
  }

  private answer(key: string, read: Read): Answer {
    const known = this.answers.get(key);
    if (known !== undefined) return known;
    this.waiting.set(key, read);
    return err("pending", `${key}: not read yet`);
  }
}
