/** Builds a kind's descriptor with the defaults most kinds share. */
import { guessedPlural } from "../api/guessed-plural.js";
import type { CliStages, PolicyKindDescriptor } from "./types.js";

type Given = Pick<PolicyKindDescriptor, "kind" | "group" | "scope" | "language" | "phases"> &
  Partial<Omit<PolicyKindDescriptor, "kind" | "group" | "scope" | "language" | "phases">>;

export function descriptor(given: Given): PolicyKindDescriptor {
  return {
    admission: given.language === "unsupported" ? "none" : "evaluated",
    notServed: undefined,
    status: "none",
    shortName: "",
    boundBy: undefined,
    reportSource: "",
    // The plural the kind's CRD declares: every policy kind's name ends in Policy (`…policies`).
    resource: guessedPlural(given.kind),
    cliStages: KYVERNO_STAGES,
    ...given,
  };
}

/** The kyverno.io stages (types.ts CliStages). */
const KYVERNO_STAGES: CliStages = {
  mutate: 0,
  verifyImages: 1,
  validate: 2,
  generate: 8,
  mutateAsBatch: false,
  countedTwice: false,
  listedLast: false,
  apart: undefined,
};

/**
 * A kind Kyverno's CLI runs apart from a resource's stages (types.ts CliStages `apart`): `rank` orders
 * the kinds run apart (ImageValidatingPolicy 0, DeletingPolicy 1); the stage numbers are not read.
 */
export function apartStage(rank: number): CliStages {
  return { ...KYVERNO_STAGES, apart: rank };
}

/**
 * A CEL kind's stage (types.ts CliStages), whichever pass its compiled policy takes part in (a
 * policy at a version Bylaw does not run compiles to a placeholder that answers in the validate pass).
 */
export function celStage(stage: number): CliStages {
  return {
    mutate: stage,
    verifyImages: stage,
    validate: stage,
    generate: stage,
    mutateAsBatch: false,
    countedTwice: false,
    listedLast: false,
    apart: undefined,
  };
}

/** The policies.kyverno.io API group of the CEL policy kinds. */
export const CEL_POLICY_GROUP = "policies.kyverno.io";
