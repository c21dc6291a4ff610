export { directoryPolicySource } from "./directory-policy-source.js";
export {
  clusterFactsView,
  parseClusterFacts,
  EMPTY_FACTS,
  CLUSTER_FACTS_API_VERSION,
  CLUSTER_FACTS_KIND,
} from "./cluster-facts.js";
export type { ClusterFactsData, RoleBindings } from "./cluster-facts.js";
export { readClusterFactsFile } from "./cluster-facts-file.js";
export { describeProblem } from "./compile-policy-set.js";
export type { DirectoryPolicySource, DirectoryPolicySourceOptions, LogFn, LogLevel, SourceProblem } from "./types.js";
