/**
 * axe-core inside the hover card's closed shadow root. No build is changed for it: the release
 * and e2e builds both close the root (page scripts must not reach the card). The DevTools
 * protocol can hand a test the closed root: the audit runs in an isolated world of its own
 * (neither the page's nor the extension's), where the host's `shadowRoot` is defined to return
 * that root, so axe walks into the card as into an open one, and only in that world.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { CDPSession } from '@playwright/test';

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** The WCAG 2.2 AA rule set: every level A and AA tag up to 2.2. */
export const WCAG22AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa'];

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown; summary: string }[];
}

interface CdpNode {
  nodeName: string;
  backendNodeId: number;
  children?: CdpNode[];
  shadowRoots?: CdpNode[];
}

function findHost(node: CdpNode): CdpNode | undefined {
  if (node.nodeName === 'IP-REPUTATION-LENS') return node;
  for (const child of [...(node.shadowRoots ?? []), ...(node.children ?? [])]) {
    const found = findHost(child);
    if (found) return found;
  }
  return undefined;
}

export interface CardAudit {
  violations: AxeViolation[];
  /**
   * Card elements some rule checked and passed (buttons named, text contrast...): proof that
   * axe saw inside the shadow root, where an audit that reached nothing would pass as well.
   */
  passedNodes: number;
  /**
   * Rules axe could not decide. color-contrast is one inside the card: axe reads no colour of
   * its text ("Unable to determine contrast ratio", even with the card out of the top layer),
   * so the card's contrast is not proven by this audit.
   */
  incomplete: string[];
}

/** Runs axe over the open card (and nothing else of the page). */
export async function auditCard(cdp: CDPSession, tags: readonly string[] = WCAG22AA): Promise<CardAudit> {
  const { frameTree } = (await cdp.send('Page.getFrameTree')) as { frameTree: { frame: { id: string } } };
  const { executionContextId } = (await cdp.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: 'axe-audit' })) as { executionContextId: number };
  await cdp.send('Runtime.evaluate', { expression: AXE_SOURCE, contextId: executionContextId });
  const { root } = (await cdp.send('DOM.getDocument', { depth: -1, pierce: true })) as { root: CdpNode };
  const shadow = findHost(root)?.shadowRoots?.[0];
  if (!shadow) throw new Error('No card is open');
  const { object } = (await cdp.send('DOM.resolveNode', { backendNodeId: shadow.backendNodeId, executionContextId })) as { object: { objectId: string } };
  const { result, exceptionDetails } = (await cdp.send('Runtime.callFunctionOn', {
    objectId: object.objectId,
    functionDeclaration: `async function (tags) {
      const root = this;
      Object.defineProperty(root.host, 'shadowRoot', { get: () => root, configurable: true });
      const out = await axe.run({ include: [root.host] }, { runOnly: { type: 'tag', values: tags } });
      const violations = out.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, summary: n.failureSummary })) }));
      const passedNodes = out.passes.reduce((sum, p) => sum + p.nodes.filter((n) => Array.isArray(n.target[0])).length, 0);
      const incomplete = out.incomplete.map((v) => v.id);
      return JSON.stringify({ violations, passedNodes, incomplete });
    }`,
    arguments: [{ value: tags }],
    awaitPromise: true,
    returnByValue: true,
  })) as { result: { value?: string }; exceptionDetails?: { exception?: { description?: string } } };
  if (exceptionDetails) throw new Error(`axe failed: ${exceptionDetails.exception?.description ?? 'unknown error'}`);
  return JSON.parse(result.value ?? '{}') as CardAudit;
}
