/**
 * Where the A2A agent is reached. Kept apart from the server module so the discovery documents can name the endpoint
 * without loading the A2A SDK's server.
 */
export const A2A_PATH = "/api/a2a";

/**
 * How a message picks its skill (lib/transports/a2a/route-message.ts), as the agent card and the text documents state it.
 * Deterministic on purpose: there is no language model behind the agent, so a caller can know what will run.
 */
export const A2A_ROUTING =
  'A2A: each message runs one skill (skill id = tool name). A data part {"skill":"<id>","arguments":{…}} runs that skill; so does a text part holding that JSON. A text part starting with a skill id runs it, with a JSON object after the id as its arguments (after browse_marketplace, any other text is the search query). Any other text searches the marketplace (browse_marketplace with the text as query). A completed task carries the result in an artifact as a data part (application/json) and a text part; a failed task\'s status message carries the problem {code, detail, errors} as data.';
