/**
 * Deprecated usage that `bylaw fix policy|test` rewrites: the messages about it end by naming the
 * command, so the fix is one step away (cli/commands/fix/fix-policy.ts, fix-test.ts list what each
 * rewrites). `bylaw apply`, `bylaw test` and the policy webhook at `kubectl apply` say it alike.
 */

/** Policy messages about what `bylaw fix policy` rewrites (operators, generateExisting/mutateExisting moves). */
const POLICY_FIXABLE =
  /Operator \w+ has been deprecated|spec\.generateExistingOnPolicyUpdate|mutateExistingOnPolicyUpdate/;

/** `text`, ending with the `bylaw fix policy` hint when it is about something that command rewrites. */
export function withPolicyFixHint(text: string): string {
  return POLICY_FIXABLE.test(text) && !text.includes("bylaw fix")
    ? `${text} (\`bylaw fix policy PATH\` rewrites it)`
    : text;
}
