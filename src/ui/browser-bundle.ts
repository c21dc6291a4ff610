/**
 * The page's script and style sheet. This file compiles to `undefined`; `npm run build`
 * (tools/bundle.mjs) bundles src/ui/browser/ with esbuild and writes the result over its compiled
 * form (dist/src/ui/browser-bundle.js), so the bundle travels inside Bylaw's own JavaScript.
 */
export const BROWSER_BUNDLE: { readonly script: string; readonly style: string } | undefined = undefined;
