/**
 * The Pod Security Standards controls a `validate.podSecurity` failure names. Kyverno's message reads
 * `... It violates PodSecurity "restricted:latest": (Forbidden reason: allowPrivilegeEscalation != false,
 * field error list: [...])`, one parenthesised group per failed control; older releases printed
 * `{Allowed:false ForbiddenReason:seccompProfile ForbiddenDetail:...}`.
 */
export function pssControls(message: string): string[] {
  if (!message.includes("violates PodSecurity")) return [];
  const found: string[] = [];
  for (const m of message.matchAll(/Forbidden reason: (.+?), field error list/g)) found.push(m[1] ?? "");
  for (const m of message.matchAll(/ForbiddenReason:(.+?) ForbiddenDetail:/g)) found.push(m[1] ?? "");
  return [...new Set(found.map((s) => s.trim()).filter((s) => s !== ""))];
}

/**
 * The failed controls of a podSecurity result, by their Pod Security Standards names ("Privileged
 * Containers"), from the `controlsJSON` property the engine adds; else the reasons in the message.
 */
export function failedControls(message: string, properties: Readonly<Record<string, string>> | undefined): string[] {
  const json = properties?.["controlsJSON"];
  if (json !== undefined) {
    try {
      const parsed = JSON.parse(json) as unknown;
      if (Array.isArray(parsed)) {
        const names = parsed.map((c) =>
          typeof c === "object" && c !== null
            ? ((c as { Name?: unknown; ID?: unknown }).Name ?? (c as { ID?: unknown }).ID)
            : undefined,
        );
        const text = names.filter((n): n is string => typeof n === "string" && n !== "");
        if (text.length > 0) return [...new Set(text)];
      }
    } catch {
      // fall back to the message
    }
  }
  return pssControls(message);
}

/** The PSS level and version a podSecurity failure was checked against, e.g. `restricted:latest`. */
export function pssProfile(message: string): string | undefined {
  return /violates PodSecurity "([^"]+)"/.exec(message)?.[1];
}
