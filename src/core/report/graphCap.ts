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

/** A label to place beside its node at (x, y), in canvas pixels. */
export interface LabelCandidate {
  index: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A placed label: its box's top-left corner. */
export interface PlacedLabel {
  index: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Places graph labels so that no two overlap and none leaves the area: each candidate, in the
 * order given (busiest node first), takes the first free box of right of its node, left, above,
 * below, clear of the other labels and of the node dots (`obstacles`); a candidate with no free
 * box is not placed. Greedy, O(n²) over at most
 * {@link GRAPH_NODE_CAP} labels.
 */
export function placeLabels(
  candidates: readonly LabelCandidate[],
  area: { left: number; top: number; right: number; bottom: number },
  minGap = 6,
  obstacles: readonly { x: number; y: number; r: number }[] = [],
): PlacedLabel[] {
  const placed: PlacedLabel[] = [];
  // PAD px of clear space around a label: two names side by side never read as one.
  const PAD = 3;
  const overlaps = (a: PlacedLabel, b: PlacedLabel) =>
    a.x < b.x + b.width + PAD && b.x < a.x + a.width + PAD && a.y < b.y + b.height + PAD && b.y < a.y + a.height + PAD;
  // Node dots, as boxes: a label is not written over another node.
  const dots = obstacles.map((o, i) => ({ index: i, x: o.x - o.r, y: o.y - o.r, width: 2 * o.r, height: 2 * o.r }));
  for (const c of candidates) {
    const h = c.height;
    // Clear of its own dot, however big (obstacles are indexed like the candidates' nodes).
    const gap = Math.max(minGap, (obstacles[c.index]?.r ?? 0) + 2);
    const options = [
      { x: c.x + gap, y: c.y - h / 2 },
      { x: c.x - gap - c.width, y: c.y - h / 2 },
      { x: c.x - c.width / 2, y: c.y - gap - h },
      { x: c.x - c.width / 2, y: c.y + gap },
    ];
    for (const o of options) {
      const box = { index: c.index, x: o.x, y: o.y, width: c.width, height: h };
      if (box.x < area.left || box.y < area.top || box.x + box.width > area.right || box.y + box.height > area.bottom) continue;
      if (placed.some((p) => overlaps(p, box)) || dots.some((d) => d.index !== c.index && overlaps(d, box))) continue;
      placed.push(box);
      break;
    }
  }
  return placed;
}

/**
 * The prefix all the names share, cut after its last separator (`-`, `_`, `.`, `/`, `:`), so a
 * namespace such as `TwilioApiV2010--` is said once instead of on every label; "" when there is
 * none, or when it would leave a name empty.
 */
export function sharedPrefix(names: readonly string[]): string {
  if (names.length < 2) return '';
  let p = names[0] ?? '';
  for (const n of names) while (!n.startsWith(p)) p = p.slice(0, -1);
  const cut = Math.max(...['-', '_', '.', '/', ':'].map((c) => p.lastIndexOf(c)));
  const prefix = cut >= 0 ? p.slice(0, cut + 1) : '';
  return names.some((n) => n.length <= prefix.length) ? '' : prefix;
}
