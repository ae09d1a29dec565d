/**
 * README.md and docs/*.md point only at what exists (scripts/check-docs.ts): relative links and
 * their #anchors, and every repository path written as code or drawn in a picture.
 */
import { describe, expect, it } from 'vitest';
import { anchorsOf, docFiles, docProblems, linksIn, repoPathsIn, slugOf, type DocTree } from '../../scripts/check-docs';

function treeOf(files: Record<string, string>): DocTree {
  const names = Object.keys(files);
  const isDir = (p: string) => names.some((n) => n.startsWith(`${p}/`));
  return {
    read: (file) => files[file] ?? null,
    exists: (p) => p in files || isDir(p),
    list: (dir) => [...new Set(names.filter((n) => n.startsWith(`${dir}/`)).map((n) => n.slice(dir.length + 1).split('/')[0]!))],
  };
}

describe('anchors', () => {
  it('spells headings as GitHub does', () => {
    expect(slugOf('For administrators (managed policy)')).toBe('for-administrators-managed-policy');
    expect(slugOf('When the API half fails: what a lookup may cost')).toBe('when-the-api-half-fails-what-a-lookup-may-cost');
    expect(slugOf('Open in …')).toBe('open-in-');
    expect(slugOf('`lib/page` layout')).toBe('libpage-layout');
  });

  it('numbers a repeated heading and ignores a # inside a code block', () => {
    const text = ['# Title', '## Notes', '```sh', '# not a heading', '```', '## Notes'].join('\n');
    expect([...anchorsOf(text)]).toEqual(['title', 'notes', 'notes-1']);
  });
});

describe('what the docs point at', () => {
  it('reads links and images, not link-like text inside code', () => {
    const text = 'See [a](docs/a.md#x) and ![p](docs/p.png), not `[b](nowhere.md)`.\n```\n[c](none.md)\n```';
    expect(linksIn(text)).toEqual([
      { line: 1, target: 'docs/a.md#x' },
      { line: 1, target: 'docs/p.png' },
    ]);
  });

  it('reads repository paths from code spans and from pictures, not from tagged code or prose', () => {
    const text = [
      'In `lib/page/page-lens.ts` and `gateway/src/`; lib/nowhere.ts in prose is not a path.',
      '```',
      ' text ─► lib/page: scanning',
      '```',
      '```sh',
      'cat lib/not-checked.ts',
      '```',
    ].join('\n');
    expect(repoPathsIn(text)).toEqual([
      { line: 1, path: 'lib/page/page-lens.ts' },
      { line: 1, path: 'gateway/src/' },
      { line: 3, path: 'lib/page' },
    ]);
  });
});

describe('problems', () => {
  const tree = treeOf({
    'README.md': '# Lens\n## For teams\nSee [gateway](docs/gateway.md#tokens), [arch](docs/architecture.md).',
    'docs/gateway.md': '# Gateway\n## Tokens\nBack to [README](../README.md#for-teams); code in `gateway/src/server.ts`.',
    'gateway/src/server.ts': '',
    'lib/messaging.ts': '',
    'lib/background/lookup-handlers.ts': '',
  });

  it('passes when every link, anchor and path resolves, module specifiers and globs included', () => {
    const ok = treeOf({
      'README.md': 'Uses `lib/messaging` and `lib/background/*-handlers`, see [g](docs/g.md#top).',
      'docs/g.md': '# Top',
      'lib/messaging.ts': '',
      'lib/background/lookup-handlers.ts': '',
    });
    expect(docProblems(['README.md', 'docs/g.md'], ok)).toEqual([]);
  });

  it('names each missing file, missing heading and stale path with its line', () => {
    const stale = treeOf({
      'README.md': 'See [g](docs/g.md#gone).\nAnd [x](docs/x.md).',
      'docs/g.md': '# Top\nCode in `lib/page/lookup-queue.ts` and `lib/ui/*-store`.',
      'lib/page/lookups/lookup-queue.ts': '',
      'lib/ui/popup/page-store.ts': '',
    });
    expect(docProblems(['README.md', 'docs/g.md'], stale)).toEqual([
      'README.md:1: link to docs/g.md#gone: no such heading in docs/g.md',
      'README.md:2: link to docs/x.md: no such file',
      'docs/g.md:2: names lib/page/lookup-queue.ts, which does not exist',
      'docs/g.md:2: names lib/ui/*-store, which does not exist',
    ]);
  });

  it('flags a link that leaves the repository and a doc file that is missing', () => {
    expect(docProblems(['docs/gateway.md', 'docs/none.md'], treeOf({ 'docs/gateway.md': '[up](../../elsewhere.md)' }))).toEqual([
      'docs/gateway.md:1: link to ../../elsewhere.md: no such file',
      'docs/none.md: not found',
    ]);
    expect(docProblems(['README.md', 'docs/gateway.md'], tree)).toEqual(['README.md:3: link to docs/architecture.md: no such file']);
  });

  it('finds none in the real README.md and docs/', () => {
    expect(docFiles()).toContain('README.md');
    expect(docFiles()).toContain('docs/architecture.md');
    expect(docProblems()).toEqual([]);
  });
});
