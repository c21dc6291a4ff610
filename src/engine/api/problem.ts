/** A problem found in a policy document: where it is (a field path) and what is wrong. */
export interface PolicyProblem {
  readonly severity: "error" | "warning";
  /** Field path inside the document, e.g. `spec.rules[0].validate.pattern`. */
  readonly path: string;
  readonly message: string;
}

export function problem(path: string, message: string): PolicyProblem {
  return { severity: "error", path, message };
}

export function warning(path: string, message: string): PolicyProblem {
  return { severity: "warning", path, message };
}
