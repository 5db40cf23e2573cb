// A document transform of codegen.yml's console target: `__typename` in every selection set of the
// console's documents. Apollo Client's cache asks for it wherever it normalises; a server that runs
// trusted documents runs the manifest's text, so the manifest must hold it already.
import { addTypenameSelectionDocumentTransform } from '@graphql-codegen/client-preset';

export const { transform } = addTypenameSelectionDocumentTransform;
