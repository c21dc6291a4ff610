/**
 * Authorise as the author, not as the controller (tenant-isolation.md rule 4): a policy that makes
 * Bylaw's background controller write or read on its behalf (engine `backgroundWrites`: generate
 * targets and clone sources, mutate-existing targets, a GeneratingPolicy's whole scope) is admitted
 * only when the user who creates or updates it may do each of those things themself, asked of the
 * API server with SubjectAccessReviews carrying the author's whole user info (name, groups, uid,
 * extra), one per verb. Bylaw's ServiceAccount then never extends what the author could do.
 *
 * The cleanup controller acts for the author the same way: a cleanup policy (kyverno.io or
 * DeletingPolicy) is admitted only when its author may list and delete what it matches
 * (`authorWriteProblems` with the engine's `cleanupDeletes`).
 *
 * Kyverno asks only about its background controller (generate-permissions.ts); this check comes
 * after those, so their texts stay Kyverno's. A kind resolves through discovery to its resources;
 * one discovery does not know is asked as every resource ("*"), which only an author allowed
 * everything passes.
 */
import {
  backgroundWrites,
  parseKindSelector,
  problem,
  type BackgroundWrite,
  type CompiledPolicy,
  type PolicyProblem,
} from "../../engine/index.js";
import type { ResourceAccess } from "../../kube/access-review.js";
import type { KindResolver } from "./kind-problems.js";

/** The user who sent the policy, as the admission request names them. */
export interface PolicyAuthor {
  readonly username: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

export interface AuthorChecks {
  readonly resolve: KindResolver;
  readonly canI: (access: ResourceAccess) => Promise<boolean>;
}

interface Resource {
  readonly group: string;
  readonly resource: string;
  readonly subresource: string;
}

export async function authorPermissionProblems(
  policy: CompiledPolicy,
  author: PolicyAuthor,
  checks: AuthorChecks,
): Promise<PolicyProblem[]> {
  return authorWriteProblems({ writes: backgroundWrites(policy), author, checks, actor: "background" });
}

/**
 * Each of `writes` the author may not do, once per field and reason. `actor` names the controller
 * that acts for them: the background one (generate, mutate-existing) or the cleanup one.
 */
export async function authorWriteProblems(o: {
  readonly writes: readonly BackgroundWrite[];
  readonly author: PolicyAuthor;
  readonly checks: AuthorChecks;
  readonly actor: "background" | "cleanup";
}): Promise<PolicyProblem[]> {
  const found = await Promise.all(o.writes.map((w) => refusal(w, o)));
  const out: PolicyProblem[] = [];
  const seen = new Set<string>();
  for (const p of found)
    if (p !== undefined && !seen.has(`${p.path}|${p.message}`)) {
      seen.add(`${p.path}|${p.message}`);
      out.push(p);
    }
  return out;
}

async function refusal(
  write: BackgroundWrite,
  o: { readonly author: PolicyAuthor; readonly checks: AuthorChecks; readonly actor: "background" | "cleanup" },
): Promise<PolicyProblem | undefined> {
  const { author, checks } = o;
  const resources = resourcesOf(write, checks.resolve);
  for (const r of resources) {
    const allowed = await Promise.all(
      write.verbs.map((verb) =>
        checks.canI({
          user: author.username,
          groups: author.groups,
          ...(author.uid !== undefined ? { uid: author.uid } : {}),
          ...(author.extra !== undefined ? { extra: author.extra } : {}),
          verb,
          group: r.group,
          resource: r.resource,
          subresource: r.subresource,
          namespace: write.namespace,
          ...(write.name !== undefined ? { name: write.name } : {}),
        }),
      ),
    );
    const refused = write.verbs.filter((_, i) => allowed[i] !== true);
    if (refused.length > 0) return problem(write.path, text(o, refused, r, write));
  }
  return undefined;
}

function resourcesOf(write: BackgroundWrite, resolve: KindResolver): Resource[] {
  const what = write.what;
  if (what.by === "resource") return [{ group: what.group, resource: what.resource, subresource: "" }];
  const selector = parseKindSelector(what.kind);
  const found = resolve(selector)?.filter((r) => !r.resource.includes("/")) ?? [];
  if (found.length === 0) return [{ group: "*", resource: "*", subresource: "" }];
  const subresource = selector.subresource === "*" ? "" : selector.subresource;
  return found.map((r) => ({ group: r.group, resource: r.resource, subresource }));
}

function text(
  o: { readonly author: PolicyAuthor; readonly actor: "background" | "cleanup" },
  refused: readonly string[],
  r: Resource,
  write: BackgroundWrite,
): string {
  const author = o.author;
  const resource =
    r.resource === "*" ? "every resource" : `${r.group === "" ? r.resource : `${r.resource}.${r.group}`}`;
  const what = write.name === undefined ? resource : `${resource} named ${write.name}`;
  const where = write.namespace === "" ? "in every namespace (or cluster-wide)" : `in namespace ${write.namespace}`;
  return (
    `the policy's author ${author.username} may not ${refused.join(", ")} ${what}${r.subresource !== "" ? `/${r.subresource}` : ""} ${where}; ` +
    `Bylaw's ${o.actor} controller acts for the author and never beyond what they may do (tenant isolation, rule 4): ` +
    `grant the author ${write.verbs.join(", ")} there, or have a user who may apply the policy`
  );
}
