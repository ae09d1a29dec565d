/**
 * The docs stay true to the tree: in README.md and docs/*.md, every relative link reaches an
 * existing file (and its #anchor, a heading of that file), and every repository path written as
 * code (`lib/page/page-lens.ts`, `gateway/src/`, `lib/messaging`) names a file or folder that
 * exists. Files move while the docs that name them are edited elsewhere; this catches the stale
 * path the day it goes stale instead of a newcomer finding it.
 * `npx tsx scripts/check-docs.ts` prints the findings; test/unit/docs.test.ts runs it in `npm test`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(SELF), '..');

/** The top-level folders a path written in the docs may start with. */
export const REPO_ROOTS = ['lib', 'components', 'entrypoints', 'scripts', 'gateway', 'test', 'docs', 'public', '.ci'];
const REPO_PATH = new RegExp(`(?<![\\w./-])(?:${REPO_ROOTS.map((r) => r.replace('.', '\\.')).join('|')})/[\\w./*-]*`, 'g');
/** What a module specifier without its extension may resolve to (`lib/messaging`). */
const MODULE_SUFFIXES = ['', '.ts', '.tsx', '/index.ts'];

/** README.md and every Markdown file in docs/, relative to the repository root. */
export function docFiles(): string[] {
  const docs = readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

interface Parts {
  /** Prose lines with their line numbers (fenced blocks left out). */
  prose: { line: number; text: string }[];
  /** Lines of fenced blocks with no language: the ASCII pictures, which name folders too. */
  pictures: { line: number; text: string }[];
}

function partsOf(markdown: string): Parts {
  const parts: Parts = { prose: [], pictures: [] };
  let fence: 'none' | 'picture' | 'code' = 'none';
  markdown.split('\n').forEach((text, i) => {
    const opener = /^\s*```(\S*)/.exec(text);
    if (opener) {
      fence = fence !== 'none' ? 'none' : opener[1] ? 'code' : 'picture';
      return;
    }
    if (fence === 'none') parts.prose.push({ line: i + 1, text });
    else if (fence === 'picture') parts.pictures.push({ line: i + 1, text });
  });
  return parts;
}

/** Every heading's anchor in one Markdown text; a repeated heading gets -1, -2, … as on GitHub. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of partsOf(markdown).prose) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (!heading?.[1]) continue;
    const slug = slugOf(heading[1]);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n ? `${slug}-${n}` : slug);
  }
  return anchors;
}

/** `[text](target)` and `![alt](target)` outside code, with their line numbers. */
export function linksIn(markdown: string): { line: number; target: string }[] {
  const links: { line: number; target: string }[] = [];
  for (const { line, text } of partsOf(markdown).prose) {
    const outsideCode = text.replace(/`[^`]*`/g, '');
    for (const m of outsideCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) links.push({ line, target: m[1]! });
  }
  return links;
}

/** Repository paths written as code in prose, or anywhere in an ASCII picture. */
export function repoPathsIn(markdown: string): { line: number; path: string }[] {
  const { prose, pictures } = partsOf(markdown);
  const found: { line: number; path: string }[] = [];
  for (const { line, text } of prose) {
    for (const span of text.matchAll(/`([^`]+)`/g)) {
      for (const m of span[1]!.matchAll(REPO_PATH)) found.push({ line, path: m[0] });
    }
  }
  for (const { line, text } of pictures) {
    for (const m of text.matchAll(REPO_PATH)) found.push({ line, path: m[0] });
  }
  return found;
}

export interface DocTree {
  read(file: string): string | null;
  /** Whether a file or folder exists at this repository-relative path. */
  exists(file: string): boolean;
  /** The names in a folder ([] if none). */
  list(dir: string): string[];
}

export const realTree: DocTree = {
  read: (file) => (existsSync(path.join(ROOT, file)) && statSync(path.join(ROOT, file)).isFile() ? readFileSync(path.join(ROOT, file), 'utf8') : null),
  exists: (file) => existsSync(path.join(ROOT, file)),
  list: (dir) => {
    try {
      return readdirSync(path.join(ROOT, dir));
    } catch {
      return [];
    }
  },
};

/** A written path exists: as given, as a module without its extension, or as a glob's match. */
function pathExists(tree: DocTree, written: string): boolean {
  const clean = written.replace(/[.,:;]+$/, '').replace(/\/$/, '');
  if (clean.includes('*')) {
    const dir = path.posix.dirname(clean);
    const name = path.posix.basename(clean).replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
    const pattern = new RegExp(`^${name}(?:\\.tsx?)?$`);
    return tree.list(dir).some((name) => pattern.test(name));
  }
  return MODULE_SUFFIXES.some((suffix) => tree.exists(clean + suffix));
}

/** `file:line: problem` for each broken link, missing anchor or missing path in these files. */
export function docProblems(files: readonly string[] = docFiles(), tree: DocTree = realTree): string[] {
  const problems: string[] = [];
  for (const file of files) {
    const text = tree.read(file);
    if (text === null) {
      problems.push(`${file}: not found`);
      continue;
    }
    for (const { line, target } of linksIn(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, chrome: …
      const [pathPart = '', anchor] = target.split('#', 2);
      const linked = pathPart ? path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURI(pathPart))) : file;
      if (linked.startsWith('..') || !tree.exists(linked)) {
        problems.push(`${file}:${line}: link to ${target}: no such file`);
        continue;
      }
      if (anchor === undefined) continue;
      const linkedText = tree.read(linked);
      if (linkedText === null || !anchorsOf(linkedText).has(anchor)) problems.push(`${file}:${line}: link to ${target}: no such heading in ${linked}`);
    }
    for (const { line, path: written } of repoPathsIn(text)) {
      if (!pathExists(tree, written)) problems.push(`${file}:${line}: names ${written}, which does not exist`);
    }
  }
  return problems;
}

if (process.argv[1] && path.resolve(process.argv[1]) === SELF) {
  const problems = docProblems();
  for (const p of problems) console.error(p);
  console.log(`${docFiles().length} Markdown files, ${problems.length} problems`);
  process.exitCode = problems.length ? 1 : 0;
}
