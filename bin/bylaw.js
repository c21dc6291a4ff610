#!/usr/bin/env node
// The bundled CLI (tools/bundle.mjs, run by `npm run build`): one file per command, loaded lazily.
import { main } from "../dist/bundle/main.js";

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
