/**
 * What a report graph draws. A force-directed layout of every tool is unreadable past a few dozen
 * nodes and slow past a few hundred (a 1,500-tool report took 5.9 s to open in Chromium, most of
 * it two such layouts): the page draws the `cap` tools of highest weighted degree and the edges
 * among them, and lists the rest in a table under the graph. The report's data keeps every edge.
 */
import { byCodeUnit } from '../util/byCodeUnit';
import type { GraphEdge } from './schema';

/** The most tools a report graph draws. */
export const GRAPH_NODE_CAP = 60;

/** A tool left out of a drawing. */
export interface LeftOutNode {
  tool: string;
  /** Sum of the weights of its edges. */
  degree: number;
  /** Its edges (to any tool). */
  edges: number;
}

export interface CappedGraph {
  /** Drawn tools, sorted by name. */
  nodes: string[];
  /** Weighted degree of each drawn tool, over all its edges (left-out partners too). */
  degree: Map<string, number>;
  /** Edges between drawn tools. */
  edges: GraphEdge[];
  /** Tools not drawn, highest degree first. */
  leftOut: LeftOutNode[];
}

/**
 * The `cap` tools with the highest weighted degree (ties by name) and the edges between them.
 * Self-loops (a tool called twice in a row) are in the data but cannot be drawn: they count toward
 * nothing here.
 */
export function capGraph(edges: readonly GraphEdge[], cap: number = GRAPH_NODE_CAP): CappedGraph {
  const drawable = edges.filter((e) => e.source !== e.target);
  const degree = new Map<string, number>();
  const count = new Map<string, number>();
  for (const e of drawable)
    for (const n of [e.source, e.target]) {
      degree.set(n, (degree.get(n) ?? 0) + e.weight);
      count.set(n, (count.get(n) ?? 0) + 1);
    }
  const ranked = [...degree.keys()].sort((a, b) => (degree.get(b) ?? 0) - (degree.get(a) ?? 0) || byCodeUnit(a, b));
  const kept = new Set(ranked.slice(0, Math.max(0, cap)));
  return {
    nodes: [...kept].sort(),
    degree: new Map([...kept].map((n) => [n, degree.get(n) ?? 0])),
    edges: drawable.filter((e) => kept.has(e.source) && kept.has(e.target)),
    leftOut: ranked.slice(kept.size).map((tool) => ({ tool, degree: degree.get(tool) ?? 0, edges: count.get(tool) ?? 0 })),
  };
}
