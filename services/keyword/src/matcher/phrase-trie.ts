// A trie of phrases over UTF-16 code units in flat typed arrays: the root's children in a direct table
// (most walks end there), every other edge in one open-addressing hash keyed by (node, unit). Phrases
// that share a prefix share nodes; each node ends at most one phrase.

const NONE = -1;

// Node ids are dense and units cluster by script, so both are mixed before the low bits pick a slot.
const slotOf = (node: number, unit: number, mask: number): number => {
  let h = (Math.imul(node, 0x9e3779b1) + unit) | 0;
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b);
  return (h ^ (h >>> 13)) & mask;
};

export class PhraseTrie {
  private readonly root = new Int32Array(0x10000);
  private nodes = 1; // node 0 is the root
  private phraseAt = new Int32Array(1024).fill(NONE);
  private keyNode = new Int32Array(1024); // 0 = empty slot (the root is never a key here)
  private keyUnit = new Uint16Array(1024);
  private child = new Int32Array(1024);
  private mask = 1023;
  private edges = 0;
  phraseCount = 0;

  /** The node reached from `node` over `unit`, or 0 when there is none. */
  next(node: number, unit: number): number {
    if (node === 0) return this.root[unit] as number;
    const keyNode = this.keyNode;
    const mask = this.mask;
    let slot = slotOf(node, unit, mask);
    for (;;) {
      const k = keyNode[slot] as number;
      if (k === node && this.keyUnit[slot] === unit) return this.child[slot] as number;
      if (k === 0) return 0;
      slot = (slot + 1) & mask;
    }
  }

  /** The phrase that ends at `node`, or -1. */
  phraseEndingAt(node: number): number {
    return this.phraseAt[node] as number;
  }

  /** Adds `units` (non-empty) as phrase `phrase`; each unit sequence must be added once. */
  add(units: string, phrase: number): void {
    let node = 0;
    for (let i = 0; i < units.length; i++) {
      const unit = units.charCodeAt(i);
      let next = this.next(node, unit);
      if (next === 0) {
        next = this.nodes++;
        this.growNodes();
        this.link(node, unit, next);
      }
      node = next;
    }
    this.phraseAt[node] = phrase;
    this.phraseCount++;
  }

  private growNodes(): void {
    if (this.nodes <= this.phraseAt.length) return;
    const grown = new Int32Array(this.phraseAt.length * 2).fill(NONE);
    grown.set(this.phraseAt);
    this.phraseAt = grown;
  }

  private link(node: number, unit: number, next: number): void {
    if (node === 0) {
      this.root[unit] = next;
      return;
    }
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
