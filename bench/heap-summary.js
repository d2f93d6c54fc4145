// Compares two V8 heap snapshots (bench/soak-bench.ts writes them with BENCH_HEAP_SNAPSHOTS): what each
// constructor holds in the first and the second (objects and their own bytes), the groups that grew most,
// and, for the groups that grew most, the retained size of what holds them (the dominator tree) and one
// holder chain from the root, so a growing map or array can be named.
// Usage: node bench/heap-summary.js <first.heapsnapshot> <second.heapsnapshot> [rows (25)]
"use strict";
const { readFileSync } = require("node:fs");

const load = (file) => {
  const { snapshot, nodes, edges, strings } = JSON.parse(readFileSync(file, "utf8"));
  const nf = snapshot.meta.node_fields;
  const ef = snapshot.meta.edge_fields;
  const nodeTypes = snapshot.meta.node_types[0];
  const edgeTypes = snapshot.meta.edge_types[0];
  const N = nf.length;
  const E = ef.length;
  const count = nodes.length / N;
  const [iType, iName, iId, iSize, iEdges] = ["type", "name", "id", "self_size", "edge_count"].map((f) => nf.indexOf(f));
  const [jType, jName, jTo] = ["type", "name_or_index", "to_node"].map((f) => ef.indexOf(f));
  const firstEdge = new Uint32Array(count + 1);
  for (let i = 0; i < count; i++) firstEdge[i + 1] = firstEdge[i] + nodes[i * N + iEdges] * E;
  const typeOf = (i) => nodeTypes[nodes[i * N + iType]];
  const nameOf = (i) => strings[nodes[i * N + iName]];
  const group = (i) => {
    const type = typeOf(i);
    if (type === "object" || type === "closure" || type === "native" || type === "array" || type === "hidden" || type === "synthetic") return `${nameOf(i)} (${type})`;
    return `(${type})`;
  };
  const weak = edgeTypes.indexOf("weak");
  const shortcut = edgeTypes.indexOf("shortcut");
  const edgeName = (e) => {
    const t = edgeTypes[edges[e + jType]];
    const n = edges[e + jName];
    return t === "element" || t === "hidden" ? `[${n}]` : String(strings[n]);
  };
  return { count, nodes, edges, N, E, iId, iSize, jTo, jType, firstEdge, weak, shortcut, group, nameOf, typeOf, edgeName };
};

const byGroup = (h) => {
  const out = new Map();
  for (let i = 0; i < h.count; i++) {
    const g = h.group(i);
    const row = out.get(g) ?? { count: 0, size: 0 };
    row.count++;
    row.size += h.nodes[i * h.N + h.iSize];
    out.set(g, row);
  }
  return out;
};

/** Immediate dominators (Cooper, Harvey and Kennedy's iterative algorithm over the reverse postorder), weak edges left out. */
const dominators = (h) => {
  const { count, edges, firstEdge, E, jTo, jType, N, weak, shortcut } = h;
  const targets = (i, f) => {
    for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += E) {
      const t = edges[e + jType];
      if (t !== weak && t !== shortcut) f(edges[e + jTo] / N);
    }
  };
  const order = new Int32Array(count).fill(-1);
  const post = [];
  const stack = [0];
  const cursor = new Uint32Array(count);
  for (let i = 0; i < count; i++) cursor[i] = firstEdge[i];
  order[0] = -2;
  while (stack.length > 0) {
    const i = stack[stack.length - 1];
    let pushed = false;
    while (cursor[i] < firstEdge[i + 1]) {
      const e = cursor[i];
      cursor[i] += E;
      const t = edges[e + jType];
      const to = edges[e + jTo] / N;
      if (t === weak || t === shortcut || order[to] !== -1) continue;
      order[to] = -2;
      stack.push(to);
      pushed = true;
      break;
    }
    if (!pushed) {
      stack.pop();
      order[i] = post.length;
      post.push(i);
    }
  }
  const preds = Array.from({ length: count }, () => []);
  for (let i = 0; i < count; i++) if (order[i] >= 0) targets(i, (to) => order[to] >= 0 && preds[to].push(i));
  const idom = new Int32Array(count).fill(-1);
  idom[0] = 0;
  const intersect = (a, b) => {
    while (a !== b) {
      while (order[a] < order[b]) a = idom[a];
      while (order[b] < order[a]) b = idom[b];
    }
    return a;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (let k = post.length - 2; k >= 0; k--) {
      const i = post[k];
      let d = -1;
      for (const p of preds[i]) if (idom[p] !== -1) d = d === -1 ? p : intersect(p, d);
      if (d !== -1 && idom[i] !== d) {
        idom[i] = d;
        changed = true;
      }
    }
  }
  const retained = new Float64Array(count);
  for (const i of post) retained[i] += h.nodes[i * N + h.iSize];
  for (const i of post) if (i !== 0 && idom[i] >= 0) retained[idom[i]] += retained[i];
  return { idom, retained };
};

const MB = (b) => `${(b / 1024 / 1024).toFixed(2)} MB`;

const [firstFile, secondFile, rowsArg] = process.argv.slice(2);
if (!firstFile || !secondFile) {
  process.stderr.write("usage: node bench/heap-summary.js <first.heapsnapshot> <second.heapsnapshot> [rows]\n");
  process.exit(2);
}
const rows = Number(rowsArg ?? 25);
const a = load(firstFile);
const ga = byGroup(a);
const totalA = [...ga.values()].reduce((s, r) => s + r.size, 0);
const idsA = new Set();
for (let i = 0; i < a.count; i++) idsA.add(a.nodes[i * a.N + a.iId]);
const b = load(secondFile);
const gb = byGroup(b);
const totalB = [...gb.values()].reduce((s, r) => s + r.size, 0);
process.stdout.write(`heap (self sizes): ${MB(totalA)} -> ${MB(totalB)} (${MB(totalB - totalA)}); objects ${a.count} -> ${b.count}\n\n`);
const diff = [...new Set([...ga.keys(), ...gb.keys()])]
  .map((g) => ({ g, a: ga.get(g) ?? { count: 0, size: 0 }, b: gb.get(g) ?? { count: 0, size: 0 } }))
  .sort((x, y) => y.b.size - y.a.size - (x.b.size - x.a.size));
process.stdout.write("grew most (constructor: objects first -> second, own bytes first -> second)\n");
for (const { g, a: ra, b: rb } of diff.slice(0, rows)) {
  process.stdout.write(`  ${g.slice(0, 60).padEnd(60)} ${String(ra.count).padStart(8)} -> ${String(rb.count).padStart(8)}   ${MB(ra.size).padStart(10)} -> ${MB(rb.size).padStart(10)} (${MB(rb.size - ra.size)})\n`);
}

// Objects new in the second snapshot (ids the first lacks): who holds them. Each is charged to its
// nearest dominator that is not itself new, so a map that grew shows once with everything it gained.
const { idom, retained } = dominators(b);
const holders = new Map();
for (let i = 0; i < b.count; i++) {
  if (idsA.has(b.nodes[i * b.N + b.iId]) || idom[i] < 0) continue;
  let d = idom[i];
  while (d !== 0 && !idsA.has(b.nodes[d * b.N + b.iId])) d = idom[d];
  const row = holders.get(d) ?? { objects: 0, bytes: 0 };
  row.objects++;
  row.bytes += b.nodes[i * b.N + b.iSize];
  holders.set(d, row);
}
const chain = (i) => {
  const names = [];
  for (let d = i, n = 0; d !== 0 && n < 12; d = idom[d], n++) names.push(b.group(d));
  return names.reverse().join(" > ");
};
process.stdout.write("\nwhat holds the objects new in the second snapshot (nearest old dominator: new objects, their bytes, its retained size)\n");
for (const [d, row] of [...holders].sort((x, y) => y[1].bytes - x[1].bytes).slice(0, rows)) {
  process.stdout.write(`  ${MB(row.bytes).padStart(10)} in ${String(row.objects).padStart(7)} objects, retained ${MB(retained[d]).padStart(10)}: ${chain(d)}\n`);
}
