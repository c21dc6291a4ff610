/**
 * The playground's HTML page. `base` is where its script and style sheet are: "/" under `bylaw
 * serve --ui-port`, "" (beside the page) in the static site `bylaw playground --out DIR` writes.
 * The page's own Content-Security-Policy allows its script and style sheet only, and no request
 * at all: the playground never calls a server.
 */
export const PLAYGROUND_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

export function playgroundPage(base: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${PLAYGROUND_CSP}">
<title>Bylaw playground</title>
<link rel="stylesheet" href="${base}playground.css">
<script defer src="${base}playground.js"></script>
</head>
<body><header><span class="brand">Bylaw playground</span></header><main id="app"><p>Loading the engine…</p></main></body>
</html>
`;
}
