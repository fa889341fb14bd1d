import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { extractFiles, writeElectronBuyCli } from "../tests/helpers/integration-programs";
import { expect, test } from "./fixtures";

const PRODUCT = { id: "tape-warmth", pluginId: "com.tidewateraudio.tapewarmth", name: "Tape Warmth" };

/**
 * Both run on every machine the suite runs on (.ci/run installs python3; Node runs the suite), so neither is skipped.
 * How each generated integration is run with `--buy`, and how its machine's fingerprint is read back: the Python
 * program itself, and Electron's license module (plain Node) through a small driver.
 */
const APPS = [
  {
    language: "python",
    entry: "license_check.py",
    start: () => ({ cmd: "python3", args: ["license_check.py", "--buy", "--app-version", "1.2.3"] }),
    fingerprint: ["python3", "-c", "import license_check; print(license_check.machine_fingerprint())"],
  },
  {
    language: "electron",
    entry: "license.js",
    start: (dir: string) => {
      writeElectronBuyCli(dir, PRODUCT.pluginId, "1.2.3");
      return { cmd: process.execPath, args: ["buy-cli.js"] };
    },
    fingerprint: [process.execPath, "-e", "require('./license.js').machineFingerprint().then((f) => console.log(f))"],
  },
] as const;

/**
 * Buying from inside an app with no key to copy, end to end: the integration generate_license_integration hands out
 * (fetched over MCP, as an agent would) runs its buy-and-activate entry point against this server and prints its
 * verification address; Chromium opens it, the buyer pays in test mode, and the program ends by itself with a key
 * already activated on its machine.
 */
for (const a of APPS) {
  test(`an app (${a.language}) buys and activates through the browser, with no key to copy`, async ({ page, request, baseURL, shot }) => {
    const client = new Client({ name: "e2e-device", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL("/api/mcp", baseURL)));
    const generated = await client.callTool({
      name: "generate_license_integration",
      arguments: { language: a.language, app_id: PRODUCT.pluginId, server_url: baseURL },
    });
    await client.close();
    const markdown = (generated.content as Array<{ type: string; text: string }>).find((c) => c.type === "text")!.text;
    const dir = mkdtempSync(join(tmpdir(), "e2e-device-"));
    try {
      expect(extractFiles(markdown, dir).has(a.entry)).toBe(true);
      const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: join(dir, "config") };
      delete env.LICENSE_KEY;
      const { cmd, args } = a.start(dir);
      const app = spawn(cmd, args, { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      app.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
      app.stderr.on("data", (c: Buffer) => (out += c.toString("utf8")));
      const exited = new Promise<number | null>((resolve) => app.on("close", resolve));

      await expect.poll(() => /(https?:\/\/\S+\/device\?user_code=([A-Z]{4}-[A-Z]{4}))/.exec(out)?.[1] ?? null, { timeout: 15_000 }).not.toBeNull();
      const [, url, userCode] = /(https?:\/\/\S+\/device\?user_code=([A-Z]{4}-[A-Z]{4}))/.exec(out)!;
      expect(out).toContain(`Your code: ${userCode}`);

      await page.goto(url!);
      const request_ = page.getByTestId("device-request");
      await expect(request_).toContainText(userCode!);
      await expect(request_).toContainText(PRODUCT.name);
      await expect(request_).toContainText("version 1.2.3");
      await shot("device-verification");

      const email = `e2e-device-${Date.now()}@example.com`;
      await page.getByLabel("E-mail address").first().fill(email);
      await page.getByRole("button", { name: `Buy ${PRODUCT.name}` }).click();
      await expect(page).toHaveURL(/\/checkout\/cs_[A-Za-z0-9]{24}$/);
      await page.getByRole("button", { name: /^pay/i }).click();
      await expect(page.getByTestId("device-note")).toBeVisible();
      const key = (await page.getByTestId("license-key").textContent())!.trim();
      await shot("device-paid");

      // The app was polling all along: it ends by itself, with the key activated on its machine and stored.
      expect(await exited, out).toBe(0);
      expect(out).toContain(`Activated license key ${key} on this machine.`);
      expect(out).toContain("License valid.");
      const fingerprint = spawnSync(a.fingerprint[0], a.fingerprint.slice(1), {
        cwd: dir,
        env,
        encoding: "utf8",
      }).stdout.trim();
      expect(fingerprint).toMatch(/^[0-9a-f]{64}$/);
      const validation = await (
        await request.post("/validate", { data: { license_key: key, machine_fingerprint: fingerprint, plugin_id: PRODUCT.pluginId } })
      ).json();
      expect(validation).toMatchObject({ valid: true, machine_bound: true, code: "VALID" });

      // The page now says the request is done.
      await page.goto(url!);
      await expect(page.locator("#device-status")).toContainText(/already complete/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
