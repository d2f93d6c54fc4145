// A trie of phrases over UTF-16 code units in flat typed arrays. Phrases that share a prefix share
// nodes; each node ends at most one phrase.
//
// Built with an open-addressing hash of (node, unit) edges, then frozen into the layout the scanner
// reads: the root's children in a paged direct table (every walk starts there), every other node's
// edges sorted by unit in one contiguous run, nodes numbered breadth-first. Most walks end within two
// or three units, so the edges they touch sit together at the front of the arrays and stay in cache,
// where a hash would scatter them over megabytes.
//
// The root table has one page of 256 cells per 256-unit block that some phrase starts in, plus one
// empty page shared by every other block, behind an index of 256 page offsets in the same array: a
// lookup is two loads and no branch, and a trie of a few Latin phrases holds 3 KB of root instead of a
// 256 KB table. A project's matcher lives as long as the
// project, so its size is what a service pays per project.

import { stepTable } from "./char-classes";

const NONE = -1;

/**
 * Edges point at a node with TERMINAL set when a phrase ends there, so a walk learns it from the edge it
 * already read instead of a second lookup; `& NODE` gives the node.
 */
export const TERMINAL = 0x40000000;
export const NODE = TERMINAL - 1;

const PAGE_BITS = 8;
const PAGE_MASK = (1 << PAGE_BITS) - 1;

/** The frozen trie. Node 0 is the root. */
export interface FrozenTrie {
  /**
   * The root's children: root[unit >>> 8] is where the page of that block of 256 units starts in `root`
   * (an empty page for blocks no phrase starts in), root[page + (unit & 0xff)] the child (with TERMINAL) or 0.
   */
  readonly root: Int32Array;
  /** Edges of node n: edgeUnit/edgeChild[edgeStart[n] .. edgeStart[n + 1]), sorted by unit; children with TERMINAL. */
  readonly edgeStart: Int32Array;
  readonly edgeUnit: Uint16Array;
  readonly edgeChild: Int32Array;
  /** Phrase ending at each node, or -1. */
  readonly phraseAt: Int32Array;
  readonly phraseCount: number;
  /** Whether the phrases (and so the texts walked) are folded. */
  readonly fold: boolean;
  /** The step table of `fold` (see char-classes.ts). */
  readonly step: Uint16Array;
}

/** The child of the root over `unit` (with TERMINAL), or 0. */
export const rootChild = (trie: FrozenTrie, unit: number): number => {
  const root = trie.root;
  return root[(root[unit >>> PAGE_BITS] as number) + (unit & PAGE_MASK)] as number;
};

/** The bytes of typed arrays the trie holds for itself (the step table is shared by all tries). */
export const trieBytes = (trie: FrozenTrie): number =>
  trie.root.byteLength + trie.edgeStart.byteLength + trie.edgeUnit.byteLength + trie.edgeChild.byteLength + trie.phraseAt.byteLength;

/** The child of non-root node `node` over `unit` (with TERMINAL), or 0. */
export const childOf = (edgeStart: Int32Array, edgeUnit: Uint16Array, edgeChild: Int32Array, node: number, unit: number): number => {
  let lo = edgeStart[node] as number;
  let hi = edgeStart[node + 1] as number;
  if (hi - lo <= 8) {
    for (; lo < hi; lo++) {
      const u = edgeUnit[lo] as number;
      if (u === unit) return edgeChild[lo] as number;
      if (u > unit) return 0;
    }
    return 0;
  }
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const u = edgeUnit[mid] as number;
    if (u === unit) return edgeChild[mid] as number;
    if (u < unit) lo = mid + 1;
    else hi = mid;
  }
  return 0;
};

// Node ids are dense and units cluster by script, so both are mixed before the low bits pick a slot.
const slotOf = (node: number, unit: number, mask: number): number => {
  let h = (Math.imul(node, 0x9e3779b1) + unit) | 0;
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b);
  return (h ^ (h >>> 13)) & mask;
};

export class PhraseTrieBuilder {
  private rootChildren!: Map<number, number>;
  private phraseAt!: Int32Array;
  private keyNode!: Int32Array; // 0 = empty slot (the root's edges live in `rootChildren`)
  private keyUnit!: Uint16Array;
  private child!: Int32Array;
  private mask!: number;
  private nodes!: number;
  private edges!: number;
  private phrases!: number;

  constructor(private readonly fold: boolean) {
    this.clear();
  }

  /** Adds `units` (non-empty) as phrase `phrase`; each unit sequence must be added once. */
  add(units: string, phrase: number): void {
    let node = 0;
    for (let i = 0; i < units.length; i++) {
      const unit = units.charCodeAt(i);
      let next = node === 0 ? (this.rootChildren.get(unit) ?? 0) : this.find(node, unit);
      if (next === 0) {
        next = this.nodes++;
        if (this.nodes > this.phraseAt.length) {
          const grown = new Int32Array(this.phraseAt.length * 2).fill(NONE);
          grown.set(this.phraseAt);
          this.phraseAt = grown;
        }
        if (node === 0) this.rootChildren.set(unit, next);
        else this.link(node, unit, next);
      }
      node = next;
    }
    this.phraseAt[node] = phrase;
    this.phrases++;
  }

  /** The trie of the phrases added, or undefined when there are none; the builder starts over empty. */
  freeze(): FrozenTrie | undefined {
    const frozen = this.phrases === 0 ? undefined : this.frozen();
    // The builder's arrays are garbage once frozen; a long-lived holder must not keep them.
    this.clear();
    return frozen;
  }

  /** Sized for a few phrases and grown by doubling: most projects have a handful of keywords. */
  private clear(): void {
    this.rootChildren = new Map();
    this.phraseAt = new Int32Array(16).fill(NONE);
    this.keyNode = new Int32Array(16);
    this.keyUnit = new Uint16Array(16);
    this.child = new Int32Array(16);
    this.mask = 15;
    this.nodes = 1;
    this.edges = 0;
    this.phrases = 0;
  }

  private frozen(): FrozenTrie {
    const fold = this.fold;
    const n = this.nodes;
    // Every non-root edge, grouped by parent (counting sort), each group sorted by unit.
    const start = new Int32Array(n + 1);
    for (let slot = 0; slot <= this.mask; slot++) {
      const parent = this.keyNode[slot] as number;
      if (parent !== 0) start[parent + 1] = (start[parent + 1] as number) + 1;
    }
    for (let k = 0; k < n; k++) start[k + 1] = (start[k + 1] as number) + (start[k] as number);
    const fill = start.slice(0, n);
    const units = new Uint16Array(this.edges);
    const kids = new Int32Array(this.edges);
    for (let slot = 0; slot <= this.mask; slot++) {
      const parent = this.keyNode[slot] as number;
      if (parent === 0) continue;
      const at = fill[parent] as number;
      fill[parent] = at + 1;
      units[at] = this.keyUnit[slot] as number;
      kids[at] = this.child[slot] as number;
    }
    for (let k = 1; k < n; k++) sortRun(units, kids, start[k] as number, start[k + 1] as number);

    // Breadth-first numbering: the root's children in unit order, then theirs, and so on.
    const rootUnits = [...this.rootChildren.keys()].sort((a, b) => a - b);
    const order = new Int32Array(n);
    const renumber = new Int32Array(n);
    let tail = 1;
    for (const unit of rootUnits) {
      const c = this.rootChildren.get(unit) as number;
      renumber[c] = tail;
      order[tail++] = c;
    }
    for (let head = 1; head < tail; head++) {
      const old = order[head] as number;
      for (let e = start[old] as number; e < (start[old + 1] as number); e++) {
        const c = kids[e] as number;
        renumber[c] = tail;
        order[tail++] = c;
      }
    }

    const ref = (old: number): number => (old === 0 ? 0 : (renumber[old] as number) | ((this.phraseAt[old] as number) >= 0 ? TERMINAL : 0));
    // The index, then the empty page every block without a phrase start points at, then one page per block with one.
    const PAGE = 1 << PAGE_BITS;
    const blocks = new Set(rootUnits.map((unit) => unit >>> PAGE_BITS));
    const root = new Int32Array((2 + blocks.size) * PAGE).fill(PAGE, 0, PAGE);
    let page = 2 * PAGE;
    for (const block of blocks) {
      root[block] = page;
      page += PAGE;
    }
    for (const unit of rootUnits) root[(root[unit >>> PAGE_BITS] as number) + (unit & PAGE_MASK)] = ref(this.rootChildren.get(unit) as number);
    const edgeStart = new Int32Array(n + 1);
    const edgeUnit = new Uint16Array(this.edges);
    const edgeChild = new Int32Array(this.edges);
    const phraseAt = new Int32Array(n).fill(NONE);
    let e = 0;
    for (let k = 1; k < n; k++) {
      const old = order[k] as number;
      phraseAt[k] = this.phraseAt[old] as number;
      edgeStart[k] = e;
      for (let f = start[old] as number; f < (start[old + 1] as number); f++) {
        edgeUnit[e] = units[f] as number;
        edgeChild[e] = ref(kids[f] as number);
        e++;
      }
    }
    edgeStart[n] = e;
    return { root, edgeStart, edgeUnit, edgeChild, phraseAt, phraseCount: this.phrases, fold, step: stepTable(fold) };
  }

  private find(node: number, unit: number): number {
    let slot = slotOf(node, unit, this.mask);
    for (;;) {
      const k = this.keyNode[slot] as number;
      if (k === node && this.keyUnit[slot] === unit) return this.child[slot] as number;
      if (k === 0) return 0;
      slot = (slot + 1) & this.mask;
    }
  }

  private link(node: number, unit: number, next: number): void {
    // Keep the table at most half full so probes stay short.
    if ((this.edges + 1) * 2 > this.mask + 1) this.rehash((this.mask + 1) * 2);
    this.insert(node, unit, next);
    this.edges++;
  }

  private insert(node: number, unit: number, next: number): void {
    let slot = slotOf(node, unit, this.mask);
    while (this.keyNode[slot] !== 0) slot = (slot + 1) & this.mask;
    this.keyNode[slot] = node;
    this.keyUnit[slot] = unit;
    this.child[slot] = next;
  }

  private rehash(size: number): void {
    const { keyNode, keyUnit, child } = this;
    this.keyNode = new Int32Array(size);
    this.keyUnit = new Uint16Array(size);
    this.child = new Int32Array(size);
    this.mask = size - 1;
    for (let slot = 0; slot < keyNode.length; slot++) {
      const k = keyNode[slot] as number;
      if (k !== 0) this.insert(k, keyUnit[slot] as number, child[slot] as number);
    }
  }
}

/** Sorts units[from..to) ascending, moving kids along (runs are short: insertion sort). */
const sortRun = (units: Uint16Array, kids: Int32Array, from: number, to: number): void => {
  for (let i = from + 1; i < to; i++) {
    const u = units[i] as number;
    const c = kids[i] as number;
    let j = i - 1;
    while (j >= from && (units[j] as number) > u) {
      units[j + 1] = units[j] as number;
      kids[j + 1] = kids[j] as number;
      j--;
    }
    units[j + 1] = u;
    kids[j + 1] = c;
  }
};
