/** What the webhooks page's create and rotate actions answer (shared by the server actions and the client forms). */
export interface WebhookFormState {
  /** A refusal for the whole form. */
  error: string | null;
  /** The new secret, shown once. */
  secret: string | null;
  url: string | null;
  values: { url: string; description: string; events: string[] };
}

export const EMPTY_WEBHOOK_STATE: WebhookFormState = { error: null, secret: null, url: null, values: { url: "", description: "", events: [] } };
