// Adds up JUnit reports (Vitest and Playwright) into one closing line: "N passed, N failed, N skipped".
import { existsSync, readFileSync } from "node:fs";

let tests = 0, failed = 0, skipped = 0, files = 0;
for (const path of process.argv.slice(2)) {
  if (!existsSync(path)) continue;
  files++;
  const xml = readFileSync(path, "utf8");
  const suites = xml.match(/<testsuites\b[^>]*>/);
  const attr = (name) => Number(suites?.[0].match(new RegExp(`\\b${name}="(\\d+)"`))?.[1] ?? 0);
  tests += attr("tests");
  failed += attr("failures") + attr("errors");
  skipped += attr("skipped");
}
if (!files) {
  console.log("no test reports found");
  process.exit(1);
}
console.log(`tests: ${tests - failed - skipped} passed, ${failed} failed, ${skipped} skipped`);
