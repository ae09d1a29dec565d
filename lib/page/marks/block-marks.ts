/**
 * CIDR blocks on the page (`203.0.113.0/24`) get their own mark, the highlight `ip-rep-block`:
 * a block is never looked up by itself (a subnet check costs up to one unit per address; the
 * analyst starts it from the popup), and its network address is not looked up as an IP
 * (blockAwareFindIps). The scanner hands over each text node it reads; only text with a slash
 * is searched, so pages without blocks pay one `includes` per node.
 */
import { cidrAfter, findCidrs, type CidrMatch } from '../../ip/find-cidrs';
import type { IpMatch } from '../../ip/types';

export const BLOCK_HIGHLIGHT = 'ip-rep-block';

/** The blocks of a text without any: one list for all (only read), not one per text read. */
const NO_BLOCKS: CidrMatch[] = [];

/** A dashed violet underline: unlike every severity colour, and no fill (nothing is known yet). */
const BLOCK_CSS = `::highlight(${BLOCK_HIGHLIGHT}) { text-decoration: underline dashed rgb(142 68 173); text-decoration-thickness: 2px; text-underline-offset: 2px; }`;

export interface BlockMarksEnv {
  registry: HighlightRegistry;
  createHighlight: () => Highlight;
  createSheet: () => CSSStyleSheet;
  /** Where the style goes, once the first block is found (adopting restyles the page). */
  styleRoot: Document;
  makeRange: (node: Text, start: number, end: number) => AbstractRange;
}

export class BlockMarks {
  private readonly byNode = new Map<Text, { ranges: AbstractRange[]; blocks: CidrMatch[] }>();
  private readonly highlight: Highlight;
  private sheet: CSSStyleSheet | null = null;
  private scans = 0;
  /** The blocks findIps saw in the text it was last given (the scanner calls scanText next). */
  private lastText: string | null = null;
  private lastBlocks = NO_BLOCKS;

  constructor(private readonly env: BlockMarksEnv) {
    this.highlight = env.createHighlight();
  }

  /** The blocks in one text node, replacing what it held before. */
  scanText(node: Text, data: string): void {
    // Nodes that left the page are dropped now and then, not on every mutation.
    if (++this.scans % 500 === 0) this.sweep();
    const old = this.byNode.get(node);
    const blocks = data === this.lastText ? this.lastBlocks : data.includes('/') ? findCidrs(data) : NO_BLOCKS;
    if (old) {
      for (const range of old.ranges) this.highlight.delete(range);
      this.byNode.delete(node);
    }
    if (!blocks.length) return;
    const ranges = blocks.map((b) => this.env.makeRange(node, b.start, b.end));
    for (const range of ranges) this.highlight.add(range);
    this.byNode.set(node, { ranges, blocks });
    this.install();
  }

  /**
   * findIps without the network addresses of blocks: `185.220.101.0` in `185.220.101.0/24` is
   * the block's name, not a host to look up. Hosts with a prefix (`203.0.113.7/24`) stay IPs.
   * The blocks come from the same matches (one scan of the text), kept for scanText.
   */
  blockAwareFindIps(findIps: (text: string) => IpMatch[]): (text: string) => IpMatch[] {
    return (text) => {
      const ips = findIps(text);
      let blocks: CidrMatch[] | null = null;
      for (const m of ips) {
        const block = cidrAfter(text, m);
        if (block) (blocks ??= []).push(block);
      }
      this.lastText = text;
      this.lastBlocks = blocks ?? NO_BLOCKS;
      if (!blocks) return ips;
      const names = new Set(blocks.map((b) => b.start));
      return ips.filter((m) => !names.has(m.start));
    };
  }

  /** Forgets text nodes that left the page. */
  sweep(): void {
    for (const [node, entry] of this.byNode) {
      if (node.isConnected) continue;
      for (const range of entry.ranges) this.highlight.delete(range);
      this.byNode.delete(node);
    }
  }

  /** Every block on the page, canonical, with how often it occurs. */
  blocks(): Map<string, number> {
    const out = new Map<string, number>();
    for (const { blocks } of this.byNode.values()) for (const b of blocks) out.set(b.cidr, (out.get(b.cidr) ?? 0) + 1);
    return out;
  }

  get size(): number {
    return this.highlight.size;
  }

  dispose(): void {
    if (this.env.registry.get(BLOCK_HIGHLIGHT) === this.highlight) this.env.registry.delete(BLOCK_HIGHLIGHT);
    this.highlight.clear();
    if (this.sheet) {
      const root = this.env.styleRoot;
      root.adoptedStyleSheets = root.adoptedStyleSheets.filter((s) => s !== this.sheet);
    }
    this.byNode.clear();
  }

  private install(): void {
    if (this.env.registry.get(BLOCK_HIGHLIGHT) !== this.highlight) this.env.registry.set(BLOCK_HIGHLIGHT, this.highlight);
    if (!this.sheet) {
      this.sheet = this.env.createSheet();
      this.sheet.replaceSync(BLOCK_CSS);
    }
    const root = this.env.styleRoot;
    if (!root.adoptedStyleSheets.includes(this.sheet)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, this.sheet];
  }
}
