import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

interface StubRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  form: URLSearchParams;
}

/**
 * A local HTTP endpoint standing in for Stripe's API (its host is unreachable here): records what the real SDK
 * sends and answers like Stripe does.
 */
export async function startStripeStub(opts: { fail?: () => boolean } = {}) {
  const requests: StubRequest[] = [];
  let n = 0;
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
      if (req.method === "POST" && req.url === "/v1/checkout/sessions") {
        const id = `cs_test_stub${n}`;
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
