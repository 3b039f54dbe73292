// Runs the view tests: each test/*.test.ts bundled by esbuild (the npm packages left as imports)
// into .test-build/, then Node's test runner over them.

import { spawnSync } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const HERE = dirname(dirname(fileURLToPath(import.meta.url)));
const OUT = join(HERE, ".test-build");
const tests = readdirSync(join(HERE, "test")).filter((name) => name.endsWith(".test.ts")).sort();

rmSync(OUT, { recursive: true, force: true });
await build({
  entryPoints: tests.map((name) => join(HERE, "test", name)),
  outdir: OUT,
  outExtension: { ".js": ".mjs" },
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  sourcemap: "inline",
  logLevel: "warning",
});
const files = tests.map((name) => join(OUT, name.replace(/\.ts$/, ".mjs")));
// Options after `npm test --` go to Node's test runner (make check: --test-concurrency=2).
const options = process.argv.slice(2);
const run = spawnSync(process.execPath, ["--enable-source-maps", "--test", "--test-reporter=spec", ...options, ...files], {
  stdio: "inherit",
});
process.exit(run.status ?? 1);
