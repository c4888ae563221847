/**
 * Source spans of ts-morph nodes, using TypeScript's cached line starts
 * (ts-morph's own line lookup rescans the file on every call).
 */
import type { SourceFile } from 'ts-morph';
import { Node } from './morph.js';
import type { Span } from '../ir/diagnostics.js';

/** The span of a range of a file. */
export function spanAt(file: SourceFile, start: number, length: number): Span {
  const { line, character } = file.compilerNode.getLineAndCharacterOfPosition(start);
  return { file: file.getFilePath(), line: line + 1, col: character + 1, start, length };
}

/** The span of a node: its name when it has one (a property, an interface), else the node itself. */
export function spanOf(node: Node): Span {
  const target = Node.hasName(node) ? node.getNameNode() : node;
  return spanAt(target.getSourceFile(), target.getStart(), target.getWidth());
}
