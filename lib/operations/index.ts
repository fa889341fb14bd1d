import type { Operation } from "./define.ts";
import { DOCUMENTS } from "./documents.ts";
import { checked, domainOperations } from "./domains.ts";

/**
 * Every operation the service offers: the domains' (lib/operations/domains.ts) and the documents derived from them
 * (lib/operations/documents.ts), which read the domains' list rather than this one, so nothing here imports itself.
 */
let all: Operation[] | undefined;

export function operations(): Operation[] {
  all ??= checked([...domainOperations(), ...DOCUMENTS]);
  return all;
}

/** The operations served at one path template, by method. */
export function operationsAt(path: string): Operation[] {
  const found = operations().filter((op) => op.http?.path === path);
  if (!found.length) throw new Error(`operation registry: nothing is declared at ${path}`);
  return found;
}

/** An operation's id (its OpenAPI operationId). */
export type OperationId = string;

let byId: Map<string, Operation> | undefined;

/** The operation with this id; an unknown id is a programming error. */
export function operationById(id: OperationId): Operation {
  byId ??= new Map(operations().map((op) => [op.id, op]));
  const op = byId.get(id);
  if (!op) throw new Error(`operation registry: no operation ${id}`);
  return op;
}
