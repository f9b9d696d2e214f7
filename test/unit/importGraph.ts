/**
 * The import graph of a source tree, for architecture tests: which file imports which, and which
 * folder imports which. Specifiers come from the TypeScript compiler's own pre-processor, so every
 * form counts (`import type`, `export … from`, `import()`, `require()`).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** Edges from each file (path relative to the root) to the files it imports inside the root. */
export type FileGraph = Map<string, Set<string>>;

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The file a relative specifier names (`./x` → `x.ts` or `x/index.ts`), or undefined outside `root`. */
function resolveSpecifier(from: string, spec: string, files: ReadonlySet<string>): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(from), spec);
  return [`${base}.ts`, join(base, 'index.ts'), base].find((p) => files.has(p));
}

/** Every `.ts` file under `root` and the files under `root` it imports. */
export function fileGraph(root: string): FileGraph {
  const files = tsFiles(root);
  const known = new Set(files);
  const graph: FileGraph = new Map();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = new Set<string>();
    for (const ref of info.importedFiles) {
      const target = resolveSpecifier(file, ref.fileName, known);
      if (target && target !== file) targets.add(relative(root, target).split(sep).join('/'));
    }
    graph.set(relative(root, file).split(sep).join('/'), targets);
  }
  return graph;
}

/**
 * The folder graph: a file's node is its first folder under the root (`spec/live/child.ts` →
 * `spec`); a file directly in the root is a node of its own (`lint.ts`). Imports inside one node
 * are dropped.
 */
export function folderGraph(files: FileGraph): Map<string, Set<string>> {
  const nodeOf = (file: string): string => file.split('/')[0] ?? file;
  const graph = new Map<string, Set<string>>();
  for (const [file, targets] of files) {
    const from = nodeOf(file);
    const edges = graph.get(from) ?? new Set<string>();
    for (const t of targets) if (nodeOf(t) !== from) edges.add(nodeOf(t));
    graph.set(from, edges);
  }
  return graph;
}

/**
 * Every cycle of a graph, one per strongly connected component of more than one node, each shown
 * as a path that returns to its start (`a → b → a`), so a failing test names the imports to undo.
 */
export function cycles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  // Tarjan's strongly connected components.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) components.push(component);
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return components.map((component) => {
    const members = new Set(component);
    const start = [...component].sort()[0]!;
    // A shortest way back to the start inside the component (breadth first).
    const previous = new Map<string, string>();
    const queue = [start];
    let end: string | undefined;
    while (queue.length && end === undefined) {
      const v = queue.shift()!;
      for (const w of [...(graph.get(v) ?? [])].sort()) {
        if (!members.has(w)) continue;
        if (w === start) {
          end = v;
          break;
        }
        if (!previous.has(w)) {
          previous.set(w, v);
          queue.push(w);
        }
      }
    }
    const path = [start];
    for (let v = end; v !== undefined && v !== start; v = previous.get(v)) path.splice(1, 0, v);
    return `${[...path, start].join(' → ')} (${component.length} in the cycle: ${[...component].sort().join(', ')})`;
  });
}
