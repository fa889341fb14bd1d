import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

/**
 * A real S3-compatible server for tests: s3rver (from the npm registry) on a random port of 127.0.0.1, storing in a
 * fresh temporary directory, with one empty bucket. `env` holds the settings that point the S3 driver at it
 * (path-style addressing, s3rver's fixed credentials).
 *
 * It runs in its own Node process, for two reasons: it is a server the code under test reaches over the network
 * like any other, and s3rver makes ListObjectsV2 continuation tokens with DES, which OpenSSL 3 only offers with
 * `--openssl-legacy-provider` (without it every truncated listing is a 500), a flag this process should not need.
 *
 * What s3rver checks: request signatures (SigV4 headers) and the expiry of presigned URLs; not the signatures of
 * presigned URLs, so tests can only check those URLs' form (AWS S3, R2 and MinIO do verify them).
 */
export async function startS3Server(): Promise<{ endpoint: string; bucket: string; env: Record<string, string>; close(): Promise<void> }> {
  const directory = await mkdtemp(join(tmpdir(), "ilm-s3rver-"));
  const bucket = "ilm-test";
  const require = createRequire(import.meta.url);
  const main = require.resolve("s3rver");
  const script = `
    const S3rver = require(${JSON.stringify(main)});
    const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory: ${JSON.stringify(directory)},
      configureBuckets: [{ name: ${JSON.stringify(bucket)} }] });
    server.run().then((address) => console.log(JSON.stringify({ port: address.port })));
    // Ends with the test process: stdin closes when the parent exits or closes it.
    process.stdin.on("end", () => process.exit(0)).resume();
  `;
  const child = spawn(process.execPath, ["--openssl-legacy-provider", "-e", script], { stdio: ["pipe", "pipe", "inherit"] });
  const exited = once(child, "exit");
  const lines = createInterface({ input: child.stdout });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("s3rver did not start within 20 s")), 20_000);
    lines.once("line", (line) => {
      clearTimeout(timer);
      resolve((JSON.parse(line) as { port: number }).port);
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error("s3rver exited before it listened"));
    });
  });
  const endpoint = `http://127.0.0.1:${String(port)}`;
  return {
    endpoint,
    bucket,
    env: {
      STORAGE_DRIVER: "s3",
      S3_BUCKET: bucket,
      S3_REGION: "us-east-1",
      S3_ENDPOINT: endpoint,
      S3_FORCE_PATH_STYLE: "on",
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
      S3_PREFIX: "",
    },
    async close() {
      lines.close();
      if (child.exitCode === null) {
        child.stdin.end();
        await exited;
      }
      await rm(directory, { recursive: true, force: true });
    },
  };
}
