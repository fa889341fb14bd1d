/**
 * One more instance of the service, as a process of its own on the database DATABASE_URL names: server.ts's request
 * listener and every route file (tests/helpers/app-server.ts). It prints `{"url": …}` once it listens and stops on
 * SIGTERM. Started by tests that need two instances racing on one PostgreSQL (tests/postgresql/).
 */
import { startAppServer } from "./app-server";

const app = await startAppServer();
process.stdout.write(`${JSON.stringify({ url: app.url })}\n`);
process.on("SIGTERM", () => {
  void app.close().then(() => process.exit(0));
});
