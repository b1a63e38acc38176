// Builds the view and writes it into the Python package with the hash of the sources it came from,
// so a test (tests/dashboard/test_view_build.py) can tell when the committed HTML is out of date.
//   npm run build            write ../deepr_mcp/dashboard/campaign.html
//   npm run build -- --out F write it to F instead (the browser tests compare the two)
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { build } from "vite";

const here = import.meta.dirname;
const TOP = ["package.json", "package-lock.json", "vite.config.mjs", "build.mjs", "campaign.html"];

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
  );
}

/** sha256 over (relative path, NUL, bytes, NUL) of every source, in sorted path order. */
export function sourceHash() {
  const files = [...TOP.map((f) => join(here, f)), ...walk(join(here, "src"))]
    .map((f) => relative(here, f).split(sep).join("/"))
    .sort();
  const hash = createHash("sha256");
  for (const rel of files) {
    hash.update(rel + "\0");
    hash.update(readFileSync(join(here, rel)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

const outArg = process.argv.indexOf("--out");
const out = outArg > 0 ? process.argv[outArg + 1] : join(here, "..", "deepr_mcp", "dashboard", "campaign.html");
await build({ configFile: join(here, "vite.config.mjs") });
const html = readFileSync(join(here, "dist", "view", "campaign.html"), "utf8");
const stamped = html.replace(
  "<head>",
  `<head>\n<meta name="deepr-ui-source-sha256" content="${sourceHash()}">`,
);
if (stamped === html) throw new Error("no <head> in the built view");
writeFileSync(out, stamped);
console.log(`wrote ${out} (${stamped.length} bytes)`);
