/**
 * The playground's script and style sheet. This file compiles to `undefined`; `npm run build`
 * (tools/bundle.mjs) bundles src/playground/browser/ (the engine with it) with esbuild and writes the
 * result over its compiled form (dist/src/playground/playground-bundle.js).
 */
export const PLAYGROUND_BUNDLE: { readonly script: string; readonly style: string } | undefined = undefined;
