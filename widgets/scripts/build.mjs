// Builds the views' front end into the files the wheel ships (deepnb/_widgets/): each entry in
// src/ bundled by esbuild into one ES module, and each stylesheet minified beside them.
//
//   node scripts/build.mjs [--outdir DIR]     (default: ../deepnb/_widgets)
//
// The output depends only on the sources and the locked esbuild version, so the committed bundles
// can be checked against a fresh build (tests/integration/test_front_end.py).

import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build, transform } from "esbuild";

const HERE = dirname(dirname(fileURLToPath(import.meta.url)));
const ENTRIES = ["run_view", "files_view", "batch_view", "experiment_view", "history_view", "loader"];
const STYLES = ["theme", "run_view", "files_view", "batch_view", "experiment_view"];

const at = process.argv.indexOf("--outdir");
const outdir = at > 0 ? resolve(process.argv[at + 1]) : join(HERE, "..", "deepnb", "_widgets");

await mkdir(outdir, { recursive: true });
await build({
  entryPoints: ENTRIES.map((name) => join(HERE, "src", `${name}.ts`)),
  outdir,
  bundle: true,
  format: "esm",
  target: "es2020",
  minify: true,
  legalComments: "none",
  charset: "utf8",
  banner: { js: "// deepnb: built from widgets/src by esbuild (npm run build in widgets/); do not edit." },
  logLevel: "warning",
});
for (const name of STYLES) {
  const source = await readFile(join(HERE, "src", `${name}.css`), "utf8");
  const { code } = await transform(source, { loader: "css", minify: true, charset: "utf8", logLevel: "warning" });
  await writeFile(join(outdir, `${name}.css`), code);
}
