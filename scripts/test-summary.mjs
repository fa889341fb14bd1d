// Adds up JUnit reports (Vitest and Playwright) into one closing line, "N passed, N failed, N skipped", followed by
// the name of every failed test with the first line of its message, and of every skipped test and why it was
// skipped, so neither a failure nor a skip hides in a long log: the summary is the last thing a run prints.
// Counts come from the <testcase> elements themselves: Vitest's <testsuites> carries no "skipped" attribute.
import { existsSync, readFileSync } from "node:fs";
import { relative } from "node:path";

const decode = (s) =>
  s.replace(/&(lt|gt|quot|apos|amp|#(\d+)|#x([0-9a-f]+));/gi, (m, name, dec, hex) =>
    dec
      ? String.fromCodePoint(Number(dec))
      : hex
        ? String.fromCodePoint(parseInt(hex, 16))
        : ({ lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" }[name.toLowerCase()] ?? m),
  );
const attrs = (tag) => Object.fromEntries([...tag.matchAll(/([\w:-]+)="([^"]*)"/g)].map(([, k, v]) => [k, decode(v)]));

/** Why a test was skipped: the <skipped message>, a skip/fixme annotation (Playwright), or "(needs …)" in its name. */
function reasonOf(name, body) {
  const skipped = /<skipped\b([^>]*?)\/?>(?:([\s\S]*?)<\/skipped>)?/.exec(body);
  const message = skipped && (attrs(skipped[1]).message || decode(skipped[2] ?? "").trim());
  if (message && message !== "Test skipped") return message;
  const annotation = [...body.matchAll(/<property\b([^>]*?)\/?>/g)]
    .map((m) => attrs(m[1]))
    .find((p) => ["skip", "fixme", "skipped"].includes(p.name) && p.value);
  if (annotation) return annotation.value;
  // The "(needs …)" group may itself hold parentheses: take everything up to the name's last ")".
  const needs = /\((needs .*)\)/.exec(name);
  if (needs) return needs[1];
  return "no reason recorded";
}

let tests = 0,
  failed = 0,
  files = 0;
const skipped = [];
const failures = [];
for (const path of process.argv.slice(2)) {
  if (!existsSync(path)) continue;
  files++;
  const xml = readFileSync(path, "utf8");
  for (const m of xml.matchAll(/<testcase\b([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const a = attrs(m[1]);
    const body = m[2] ?? "";
    tests++;
    const name = a.classname && !a.name.startsWith(a.classname) ? `${a.classname} › ${a.name}` : a.name;
    const failure = /<(?:failure|error)\b([^>]*?)\/?>(?:([\s\S]*?)<\/(?:failure|error)>)?/.exec(body);
    if (failure) {
      failed++;
      const text = attrs(failure[1]).message || decode(failure[2] ?? "");
      const first =
        text
          .split("\n")
          .map((l) => l.trim())
          .find(Boolean) ?? "no message recorded";
      failures.push({ name, message: first.slice(0, 300), report: relative(process.cwd(), path) });
    } else if (/<skipped\b/.test(body)) {
      skipped.push({ name, reason: reasonOf(a.name, body), report: relative(process.cwd(), path) });
    }
  }
}
if (!files) {
  console.log("no test reports found");
  process.exit(1);
}
console.log(`tests: ${tests - failed - skipped.length} passed, ${failed} failed, ${skipped.length} skipped`);
if (failures.length) {
  console.log(`failed tests (${failures.length}):`);
  for (const f of failures) console.log(`  - ${f.name} [${f.report}]: ${f.message}`);
}
if (skipped.length) {
  console.log(`skipped tests (${skipped.length}):`);
  for (const s of skipped) console.log(`  - ${s.name} [${s.report}]: ${s.reason}`);
}
