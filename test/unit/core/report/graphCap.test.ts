import assert from 'node:assert/strict';
import { test } from 'node:test';
import { capGraph, GRAPH_NODE_CAP } from '../../../../src/core/report/graphCap';
import type { GraphEdge } from '../../../../src/core/report/schema';

test('a small graph is drawn whole; self-loops are not drawn', () => {
  const edges: GraphEdge[] = [
    { source: 'b', target: 'a', weight: 2 },
    { source: 'a', target: 'c', weight: 1 },
    { source: 'c', target: 'c', weight: 5 },
  ];
  const g = capGraph(edges);
  assert.deepEqual(g.nodes, ['a', 'b', 'c']);
  assert.deepEqual(g.edges, edges.slice(0, 2));
  assert.deepEqual(g.leftOut, []);
  assert.equal(g.degree.get('a'), 3);
  assert.equal(g.degree.get('c'), 1);
});

test('a large graph keeps the busiest tools and the edges among them; the rest are listed, busiest first', () => {
  // A hub joined to 200 spokes of rising weight, plus a ring among the spokes.
  const edges: GraphEdge[] = [];
  for (let i = 0; i < 200; i++) edges.push({ source: 'hub', target: `t${String(i).padStart(3, '0')}`, weight: i + 1 });
  for (let i = 0; i < 200; i++) edges.push({ source: `t${String(i).padStart(3, '0')}`, target: `t${String((i + 1) % 200).padStart(3, '0')}`, weight: 1 });
  const g = capGraph(edges);
  assert.equal(g.nodes.length, GRAPH_NODE_CAP);
  assert.ok(g.nodes.includes('hub'));
  assert.ok(g.nodes.includes('t199') && !g.nodes.includes('t000'));
  assert.equal(g.leftOut.length, 201 - GRAPH_NODE_CAP);
  const kept = new Set(g.nodes);
  assert.ok(g.edges.every((e) => kept.has(e.source) && kept.has(e.target)));
  // Every edge among kept tools is there: the hub's 59 spokes and the ring's links among t141..t199.
  assert.equal(g.edges.length, GRAPH_NODE_CAP - 1 + (GRAPH_NODE_CAP - 2));
  assert.deepEqual(g.leftOut[0], { tool: 't140', degree: 141 + 2, edges: 3 });
  assert.deepEqual(
    g.leftOut.map((n) => n.degree),
    [...g.leftOut.map((n) => n.degree)].sort((a, b) => b - a),
  );
  // Degrees count all of a tool's edges, to left-out tools too.
  assert.equal(g.degree.get('t141'), 142 + 2);
});
