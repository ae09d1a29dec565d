/**
 * What one page may cost us. Past any of these the scan of the whole page stops and
 * the lens marks what is on screen only ("too many IPs here: marking visible ones only"), so a
 * hostile or merely huge page degrades instead of freezing or eating memory. The numbers sit
 * well above the consoles we target: the 10,000-row benchmark page holds 40,000 addresses.
 */
export interface PageLimits {
  /** Addresses kept in the occurrence store (each one costs an object and a map entry). */
  maxOccurrences: number;
  /** Addresses read from one text node (one element holding 150,000 of them). */
  maxMatchesPerNode: number;
  /** Text nodes the whole-page scan visits. */
  maxTextNodes: number;
  /** Characters of text the whole-page scan reads. */
  maxChars: number;
  /**
   * Nodes (elements and texts) one piece of urgent work looks at (a row on screen, what the
   * page just added) before the rest of it waits with the whole-page scan, and so obeys the
   * limits above. A row holds a few dozen; when the viewport sample finds no row over a huge
   * table, the table itself is what it hands over, and that is not "what is on screen".
   */
  maxUrgentNodes: number;
}

export const DEFAULT_PAGE_LIMITS: PageLimits = {
  maxOccurrences: 50_000,
  maxMatchesPerNode: 2_000,
  maxTextNodes: 2_000_000,
  maxChars: 64 * 1024 * 1024,
  maxUrgentNodes: 20_000,
};

/** Text longer than this is scanned in pieces across time slices, not in one call. */
export const LARGE_TEXT = 64 * 1024;

/** The limits that stop the whole-page scan (an urgent piece of work too big is only demoted). */
export type LimitReached = Exclude<keyof PageLimits, 'maxUrgentNodes'>;
