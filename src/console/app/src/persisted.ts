import { Kind, parse, type ASTNode, type DocumentNode } from 'graphql';
import manifest from '../generated/persisted-documents.json';

/** The operation a document defines (each of the console's documents defines one). */
function operationName(document: DocumentNode): string | undefined {
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) return definition.name?.value;
  }
  return undefined;
}

/**
 * The console's trusted documents (codegen's manifest, built with the console), by operation name:
 * the SHA-256 the server knows each by, and the exact text that hashes to it.
 */
const byName = new Map(
  Object.entries(manifest as Record<string, string>).map(([key, text]) => [operationName(parse(text)), { hash: key.replace(/^sha256:/, ''), text }]),
);

function entryOf(document: DocumentNode): { hash: string; text: string } {
  const entry = byName.get(operationName(document));
  if (!entry) throw new Error(`${operationName(document) ?? 'an anonymous operation'} is not one of the console's documents`);
  return entry;
}

/** The hash Apollo Client's persisted-query link sends in place of the document. */
export function hashOf(document: DocumentNode): string {
  return entryOf(document).hash;
}

/**
 * The text sent when a server without a manifest asks for it (automatic persisted queries): the
 * manifest's own, so that it hashes to the hash sent with it; Apollo Client's printing of the
 * document would not.
 */
export function textOf(node: ASTNode, print: (node: ASTNode) => string): string {
  return node.kind === Kind.DOCUMENT ? entryOf(node).text : print(node);
}

/**
 * A subscription's request over the WebSocket: the manifest's text, which the server hashes to find
 * it in its manifest (or runs, without one), and its hash as `extensions.persistedQuery` says it.
 */
export function requestOf(document: DocumentNode): { query: string; extensions: { persistedQuery: { version: 1; sha256Hash: string } } } {
  const { hash, text } = entryOf(document);
  return { query: text, extensions: { persistedQuery: { version: 1, sha256Hash: hash } } };
}
