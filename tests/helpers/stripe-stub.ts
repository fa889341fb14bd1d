import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface StubRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  form: URLSearchParams;
}

/** An extra route of the stand-in: answers a request (the parsed form body) with a Stripe object, or null for 404. */
export type StubRoute = (req: StubRequest, n: number) => { status?: number; body: unknown } | null;

/**
 * A local HTTP endpoint standing in for Stripe's API (its host is unreachable here): records what the real SDK
 * sends and answers like Stripe does. `routes` adds answers by "METHOD /v1/path" (a prefix match for paths with
 * ids, e.g. "POST /v1/accounts/"), checked before the built-in checkout-session route.
 */
export async function startStripeStub(opts: { fail?: () => boolean; routes?: Record<string, StubRoute> } = {}) {
  const requests: StubRequest[] = [];
  let n = 0;
  // Session ids unique across stubs: files that run one after another on a worker's database each start their own
  // stub, and an order's provider session id is unique there.
  const tag = randomBytes(4).toString("hex");
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString());
      requests.push({ method: req.method!, path: req.url!, headers: req.headers, form });
      res.setHeader("content-type", "application/json");
      res.setHeader("request-id", `req_${++n}`);
      if (opts.fail?.()) {
        res.writeHead(500).end(JSON.stringify({ error: { type: "api_error", message: "stub failure" } }));
        return;
      }
      const request = requests[requests.length - 1]!;
      const route = Object.entries(opts.routes ?? {}).find(([k]) => {
        const [method, path] = k.split(" ") as [string, string];
        return method === req.method && (path.endsWith("/") ? req.url!.startsWith(path) : req.url!.split("?")[0] === path);
      });
      const answer = route ? route[1](request, n) : null;
      if (answer) {
        res.writeHead(answer.status ?? 200).end(JSON.stringify(answer.body));
        return;
      }
      if (req.method === "POST" && req.url === "/v1/checkout/sessions") {
        const id = `cs_test_stub${tag}${n}`;
        res.writeHead(200).end(
          JSON.stringify({
            id,
            object: "checkout.session",
            url: `https://checkout.stripe.com/c/pay/${id}`,
            amount_total: Number(form.get("line_items[0][price_data][unit_amount]")),
            currency: form.get("line_items[0][price_data][currency]"),
            customer_email: form.get("customer_email"),
            client_reference_id: form.get("client_reference_id"),
            metadata: { order_id: form.get("metadata[order_id]") },
            payment_status: "unpaid",
            status: "open",
          }),
        );
        return;
      }
      res.writeHead(404).end(JSON.stringify({ error: { type: "invalid_request_error", message: "no such route in the stub" } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
