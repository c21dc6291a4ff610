/**
 * The engine's ExistingResources port for the generate controller: clone sources and cloneList
 * objects read from the API server. The engine is synchronous, reads are not: a read not made yet
 * answers a `pending` error and is recorded; the controller makes the recorded reads (`settle`)
 * and evaluates again (as src/kube/cluster-reads.ts does for context entries).
 */
import { err, type ExistingResources, type LabelSelector, ok, type Resource, type Result } from "../../engine/index.js";
import { describeKubeError } from "../../kube/cluster-reads.js";
import { KubeError } from "../../kube/kube-client.js";
import type { KindPaths } from "./kind-paths.js";

type Read = () => Promise<Result<Resource | undefined | readonly Resource[]>>;

export class RecordedExisting {
  private readonly answers = new Map<string, Result<Resource | undefined | readonly Resource[]>>();
  private readonly waiting = new Map<string, Read>();

  constructor(
    private readonly client: { getJson(path: string): Promise<unknown> },
    private readonly paths: KindPaths,
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
      get: (apiVersion, kind, namespace, name) =>
        this.answer(`get ${apiVersion} ${kind} ${namespace} ${name}`, async () => {
          const where = await this.paths.resolve(apiVersion, kind);
          if (where === undefined) return err("unavailable", `the cluster serves no ${apiVersion} ${kind}`);
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

  private answer(key: string, read: Read): Result<Resource | undefined | readonly Resource[]> {
    const known = this.answers.get(key);
    if (known !== undefined) return known;
    this.waiting.set(key, read);
    return err("pending", `${key}: not read yet`);
  }
}
