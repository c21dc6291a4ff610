/** `semver_compare`: whether a version satisfies a blang/semver range. */
import type { FunctionDef } from "../../types.js";
import { parseSemver, type Semver } from "../../../values/semver.js";
import { stringArg } from "./args.js";
import { goError } from "./errors.js";
import { parseSemverRange } from "./semver-range.js";

/** An unparsable version counts as 0.0.0, as Kyverno ignores the parse error. */
const ZERO: Semver = { major: 0n, minor: 0n, patch: 0n, prerelease: [], build: [] };

export const semverFunctions: readonly FunctionDef[] = [
  {
    name: "semver_compare",
    args: [{ types: ["string"] }, { types: ["string"] }],
    returns: "boolean",
    description:
      "compares two strings which comply with the semantic versioning schema and outputs a boolean response as to the position of the second relative to the first",
    call: (args) => {
      const version = parseSemver(stringArg("semver_compare", args, 0)) ?? ZERO;
      const range = parseSemverRange(stringArg("semver_compare", args, 1));
      if (typeof range === "string") throw goError(range);
      return range(version);
    },
  },
];
