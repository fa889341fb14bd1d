import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "test-summary-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Shapes as Vitest 4 and Playwright write them (Vitest's <testsuites> has no "skipped" attribute).
const VITEST = `<?xml version="1.0" encoding="UTF-8" ?>
<testsuites name="vitest tests" tests="4" failures="1" errors="0" time="0.1">
    <testsuite name="tests/integration/integrations.test.ts" tests="4" failures="1" errors="0" skipped="2" time="0.1">
        <testcase classname="tests/integration/integrations.test.ts" name="Rust (needs cargo) &gt; builds" time="0">
            <skipped/>
        </testcase>
        <testcase classname="tests/integration/integrations.test.ts" name="runtime skip" time="0">
            <skipped/>
        </testcase>
        <testcase classname="tests/integration/integrations.test.ts" name="breaks" time="0"><failure message="no" type="AssertionError">x</failure></testcase>
        <testcase classname="tests/integration/integrations.test.ts" name="works" time="0">
        </testcase>
    </testsuite>
</testsuites>`;
const PLAYWRIGHT = `<testsuites id="" name="" tests="2" failures="0" skipped="1" errors="0" time="1">
<testsuite name="cluster.spec.ts" tests="2" failures="0" skipped="1" time="1" errors="0">
<testcase name="cluster › survives a database restart" classname="cluster.spec.ts" time="0">
<properties>
<property name="skip" value="no initdb on this machine &amp; no private PostgreSQL">
</property>
</properties>
<skipped>
</skipped>
</testcase>
<testcase name="cluster › two instances" classname="cluster.spec.ts" time="1">
</testcase>
</testsuite>
</testsuites>`;

const summary = (...files: string[]) => execFileSync(process.execPath, ["scripts/test-summary.mjs", ...files], { encoding: "utf8" });

describe("scripts/test-summary.mjs", () => {
  it("counts skipped tests from the test cases and names each with its reason", () => {
    writeFileSync(join(dir, "vitest.xml"), VITEST);
    writeFileSync(join(dir, "e2e.xml"), PLAYWRIGHT);
    const out = summary(join(dir, "vitest.xml"), join(dir, "e2e.xml"), join(dir, "absent.xml"));
    const lines = out.trim().split("\n");
    expect(lines[0]).toBe("tests: 2 passed, 1 failed, 3 skipped");
    expect(lines[1]).toBe("failed tests (1):");
    expect(lines[2]).toMatch(/^ {2}- tests\/integration\/integrations\.test\.ts › breaks \[.*vitest\.xml\]: no$/);
    expect(lines[3]).toBe("skipped tests (3):");
    expect(lines[4]).toMatch(/^ {2}- tests\/integration\/integrations\.test\.ts › Rust \(needs cargo\) > builds \[.*vitest\.xml\]: needs cargo$/);
    expect(lines[5]).toMatch(/runtime skip \[.*\]: no reason recorded$/);
    expect(lines[6]).toMatch(
      /cluster\.spec\.ts › cluster › survives a database restart \[.*e2e\.xml\]: no initdb on this machine & no private PostgreSQL$/,
    );
    expect(lines).toHaveLength(7);
  });

  it("lists nothing when nothing was skipped", () => {
    writeFileSync(
      join(dir, "clean.xml"),
      `<testsuites><testsuite><testcase classname="a" name="b" time="0"></testcase><testcase classname="a" name="c" time="0"/></testsuite></testsuites>`,
    );
    expect(summary(join(dir, "clean.xml"))).toBe("tests: 2 passed, 0 failed, 0 skipped\n");
  });

  it("names a failure whose message is only in its body by the body's first non-empty line", () => {
    writeFileSync(
      join(dir, "error.xml"),
      `<testsuites><testsuite><testcase classname="t.test.ts" name="times out" time="5"><error>
  Error: Test timed out in 5000ms.
    at somewhere
</error></testcase></testsuite></testsuites>`,
    );
    expect(summary(join(dir, "error.xml"))).toMatch(
      /^tests: 0 passed, 1 failed, 0 skipped\nfailed tests \(1\):\n {2}- t\.test\.ts › times out \[.*error\.xml\]: Error: Test timed out in 5000ms\.\n$/,
    );
  });
});
